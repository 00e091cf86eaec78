// Threat alerting settings of an environment: threats at or above `minSeverity` raise a threat.alerted event, which
// the dispatcher delivers to the settings' notification channels (db/processes/dispatch.ts) through the durable
// channel deliveries, whatever event types those channels subscribe to.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { EventOf } from '../../event-catalog.ts';
import { atLeast, ThreatAlerting, type Severity, type Threat } from './rows.ts';

const Id = z.object({ id: z.uuid() });

export function createThreatAlertingQueries(db: CommonQueryMethods) {
  const find = (environmentId: string) =>
    db.maybeOne(sql.type(ThreatAlerting)`
      SELECT environment_id AS "environmentId", min_severity AS "minSeverity", channel_ids AS "channelIds", updated_at AS "updatedAt"
      FROM threat_alerting WHERE environment_id = ${environmentId}`);
  return {
    find,

    upsert: async (environmentId: string, minSeverity: Severity, channelIds: string[]) => {
      await db.query(sql.unsafe`
        INSERT INTO threat_alerting (environment_id, min_severity, channel_ids) VALUES (${environmentId}, ${minSeverity}, ${sql.array(channelIds, 'uuid')})
        ON CONFLICT (environment_id) DO UPDATE SET min_severity = EXCLUDED.min_severity, channel_ids = EXCLUDED.channel_ids, updated_at = now()`);
      return (await find(environmentId))!;
    },

    /** The channels of the list that belong to the tenant and receive this environment's events. */
    reachableChannels: async (tenantId: string, environmentId: string, ids: string[]) =>
      new Set(
        (
          await db.any(sql.type(Id)`
            SELECT id FROM notification_channels WHERE id = ANY(${sql.array(ids, 'uuid')}) AND tenant_id = ${tenantId}
              AND (environment_id IS NULL OR environment_id = ${environmentId})`)
        ).map((r) => r.id),
      ),

    /**
     * The threat.alerted event a threat raises now, or null when the environment alerts on nothing at its severity;
     * an escalation alerts only when it crosses the threshold (from `previous` below it).
     */
    alertOf: async (threat: Threat, trigger: 'created' | 'reopened' | 'escalated', previous?: Severity): Promise<EventOf<'threat.alerted'> | null> => {
      const settings = await find(threat.environmentId);
      if (!settings || settings.channelIds.length === 0 || !atLeast(threat.severity, settings.minSeverity)) return null;
      if (previous && atLeast(previous, settings.minSeverity)) return null;
      return { type: 'threat.alerted', data: { threat, trigger, minSeverity: settings.minSeverity, channelIds: settings.channelIds } };
    },
  };
}
