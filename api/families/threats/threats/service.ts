// Threat records: triage (open ↔ investigating, severity, assignee), notes, resolve or dismiss with a reason, and
// reopen. Closed threats change only by reopening (notes are still welcome). Each change is audited with its event,
// and a threat reaching the environment's alerting threshold raises threat.alerted in the same transaction.
import type { DatabasePool } from 'slonik';
import type { EventOf } from '../../../../db/event-catalog.ts';
import { createThreatQueries } from '../../../../db/threats/threats/queries.ts';
import { createThreatAlertingQueries } from '../../../../db/threats/threats/alerting.ts';
import { atLeast, type Severity, type Threat, type ThreatStatus } from '../../../../db/threats/threats/rows.ts';
import { ApiError, invalidField, notFound, orNotFound } from '../../../errors.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { listPage } from '../../../common/schemas.ts';
import type { ThreatsQuery } from './schemas.ts';

type Db = Parameters<typeof createThreatQueries>[0];
const CLOSED: ThreatStatus[] = ['resolved', 'dismissed'];

const invalidTransition = (threat: Threat, attempted: string) =>
  new ApiError(409, 'threat.invalid_transition', `The threat is ${threat.status}: it cannot be ${attempted}.`, {
    details: [{ path: 'status', message: `is ${threat.status}` }],
  });

/** Records a change of a threat with its event, and its alert when it reaches the threshold. */
async function recordThreat(
  db: Db,
  caller: EnvironmentCaller,
  verb: string,
  before: Threat | null,
  threat: Threat,
  event: EventOf<'threat.created' | 'threat.updated' | 'threat.resolved' | 'threat.reopened'>,
  trigger?: 'created' | 'reopened' | 'escalated',
) {
  await record(db, caller, { action: `threat.${verb}`, resource: { type: 'threat', id: threat.id }, before, after: threat, event });
  const alert = trigger && (await createThreatAlertingQueries(db).alertOf(threat, trigger, trigger === 'escalated' ? before?.severity : undefined));
  if (alert) await record(db, caller, { action: 'threat.alert', resource: { type: 'threat', id: threat.id }, event: alert });
}

export function createThreatService(deps: { pool: DatabasePool }) {
  const { pool } = deps;
  const find = (db: Db, caller: EnvironmentCaller, id: string, lock = false) =>
    orNotFound(createThreatQueries(db, caller.scope.environmentId).find(id, { lock }), 'threat', id);
  const checkAssignee = async (db: Db, caller: EnvironmentCaller, assigneeId: string | null | undefined) => {
    if (!assigneeId) return;
    if (!(await createThreatQueries(db, caller.scope.environmentId).isAssignable(assigneeId))) {
      throw invalidField('body.assigneeId', 'is not a directory user of this environment or an operator');
    }
  };

  return {
    find: (caller: EnvironmentCaller, id: string) => find(pool, caller, id),

    list: (caller: EnvironmentCaller, query: ThreatsQuery) => {
      const { limit, offset, cursor, ...filter } = query;
      return listPage('threats', { limit, offset, cursor }, (page) => createThreatQueries(pool, caller.scope.environmentId).findPage(filter, page));
    },

    create: (caller: EnvironmentCaller, input: { severity: Severity; subject: string; summary: string; evidence: Record<string, unknown> }) =>
      pool.transaction(async (trx) => {
        const threat = await createThreatQueries(trx, caller.scope.environmentId).insertManual(input);
        await recordThreat(trx, caller, 'create', null, threat, { type: 'threat.created', data: { threat } }, 'created');
        return threat;
      }),

    triage: (caller: EnvironmentCaller, id: string, input: { status?: 'open' | 'investigating'; severity?: Severity; assigneeId?: string | null }) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id, true);
        if (CLOSED.includes(before.status)) throw invalidTransition(before, 'triaged; reopen it first');
        await checkAssignee(trx, caller, input.assigneeId);
        const changes = Object.fromEntries(Object.entries(input).filter(([k, v]) => v !== undefined && v !== before[k as keyof Threat]));
        if (Object.keys(changes).length === 0) return before;
        const threat = await createThreatQueries(trx, caller.scope.environmentId).update(id, changes);
        const escalated = input.severity !== undefined && !atLeast(before.severity, input.severity);
        await recordThreat(
          trx,
          caller,
          'update',
          before,
          threat,
          { type: 'threat.updated', data: { threat, change: 'triage' } },
          escalated ? 'escalated' : undefined,
        );
        return threat;
      }),

    note: (caller: EnvironmentCaller, id: string, text: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id, true);
        const threat = await createThreatQueries(trx, caller.scope.environmentId).addNote(id, caller.actor, text);
        await recordThreat(trx, caller, 'note', before, threat, { type: 'threat.updated', data: { threat, change: 'note' } });
        return threat;
      }),

    close: (caller: EnvironmentCaller, id: string, outcome: 'resolved' | 'dismissed', reason: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id, true);
        if (CLOSED.includes(before.status)) throw invalidTransition(before, outcome);
        const threat = await createThreatQueries(trx, caller.scope.environmentId).close(id, outcome, reason, caller.actor);
        await recordThreat(trx, caller, outcome === 'resolved' ? 'resolve' : 'dismiss', before, threat, { type: 'threat.resolved', data: { threat, outcome } });
        return threat;
      }),

    reopen: (caller: EnvironmentCaller, id: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id, true);
        if (!CLOSED.includes(before.status)) throw invalidTransition(before, 'reopened');
        const threat = await createThreatQueries(trx, caller.scope.environmentId).reopen(id);
        await recordThreat(trx, caller, 'reopen', before, threat, { type: 'threat.reopened', data: { threat } }, 'reopened');
        return threat;
      }),

    alerting: async (caller: EnvironmentCaller) =>
      (await createThreatAlertingQueries(pool).find(caller.scope.environmentId)) ?? {
        environmentId: caller.scope.environmentId,
        minSeverity: 'high' as const,
        channelIds: [],
        updatedAt: null,
      },

    setAlerting: async (caller: EnvironmentCaller, input: { minSeverity: Severity; channelIds: string[] }) => {
      const reachable = await createThreatAlertingQueries(pool).reachableChannels(caller.scope.tenant.id, caller.scope.environmentId, input.channelIds);
      const missing = input.channelIds.find((id) => !reachable.has(id));
      if (missing) throw notFound('notification_channel', missing);
      return pool.transaction(async (trx) => {
        const queries = createThreatAlertingQueries(trx);
        const before = await queries.find(caller.scope.environmentId);
        const alerting = await queries.upsert(caller.scope.environmentId, input.minSeverity, input.channelIds);
        await record(trx, caller, {
          action: 'threat_alerting.update',
          resource: { type: 'threat_alerting', id: caller.scope.environmentId },
          before,
          after: alerting,
          event: { type: 'threat.alerting_updated', data: { alerting } },
        });
        return alerting;
      });
    },
  };
}

export type ThreatService = ReturnType<typeof createThreatService>;
