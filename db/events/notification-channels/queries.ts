import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { NotificationChannel } from '../webhooks/rows.ts';
import { selectPage, type PageRequest } from '../../shared/pages.ts';

const columns = sql.fragment`
  c.id, c.tenant_id AS "tenantId", c.environment_id AS "environmentId", c.kind, c.name, c.event_types AS "eventTypes",
  c.config, c.secret_hints AS "secretHints", c.active, c.created_at AS "createdAt", c.updated_at AS "updatedAt"`;

/** An event as the channel formats read it (see lib/notifications/formats/summary.ts). */
const ChannelEventRow = z.object({
  id: z.uuid(),
  type: z.string(),
  occurredAt: z.string(),
  tenantId: z.uuid(),
  environmentId: z.uuid().nullable(),
  actor: z.object({ type: z.string(), id: z.string() }),
  subject: z.object({ type: z.string(), id: z.string() }).nullable(),
  data: z.record(z.string(), z.unknown()),
});

export interface ChannelChanges {
  name?: string;
  eventTypes?: string[];
  config?: Record<string, unknown>;
  /** Encrypted JSON of the secrets with their masked hints; replaces both. */
  secrets?: { encrypted: string; hints: Record<string, string> };
  environmentId?: string | null;
  active?: boolean;
}

export function createNotificationChannelQueries(db: CommonQueryMethods, tenantId: string) {
  const one = (id: string) =>
    db.one(sql.type(NotificationChannel)`SELECT ${columns} FROM notification_channels c WHERE c.tenant_id = ${tenantId} AND c.id = ${id}`);
  return {
    findChannel: (id: string) =>
      db.maybeOne(sql.type(NotificationChannel)`SELECT ${columns} FROM notification_channels c WHERE c.id = ${id} AND c.tenant_id = ${tenantId}`),

    findChannelById: one,

    lockChannel: (id: string) => db.query(sql.unsafe`SELECT 1 FROM notification_channels WHERE tenant_id = ${tenantId} AND id = ${id} FOR UPDATE`),

    findChannels: (page: PageRequest) =>
      selectPage(
        db,
        NotificationChannel,
        sql.fragment`SELECT ${columns} FROM notification_channels c WHERE c.tenant_id = ${tenantId}`,
        sql.fragment`c.created_at, c.id`,
        page,
      ),

    insertChannel: (c: {
      environmentId: string | null;
      kind: string;
      name: string;
      eventTypes: string[];
      config: Record<string, unknown>;
      secretsEncrypted: string;
      secretHints: Record<string, string>;
      active: boolean;
    }) =>
      db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO notification_channels (tenant_id, environment_id, kind, name, event_types, config, secrets_encrypted, secret_hints, active)
        VALUES (${tenantId}, ${c.environmentId}, ${c.kind}, ${c.name}, ${sql.array(c.eventTypes, 'text')}, ${sql.jsonb(c.config as never)},
          ${c.secretsEncrypted}, ${sql.jsonb(c.secretHints)}, ${c.active})
        RETURNING id`),

    updateChannel: async (id: string, c: ChannelChanges) => {
      const sets = [
        c.name !== undefined && sql.fragment`name = ${c.name}`,
        c.eventTypes !== undefined && sql.fragment`event_types = ${sql.array(c.eventTypes, 'text')}`,
        c.config !== undefined && sql.fragment`config = ${sql.jsonb(c.config as never)}`,
        c.secrets !== undefined && sql.fragment`secrets_encrypted = ${c.secrets.encrypted}, secret_hints = ${sql.jsonb(c.secrets.hints)}`,
        c.environmentId !== undefined && sql.fragment`environment_id = ${c.environmentId}`,
        c.active !== undefined && sql.fragment`active = ${c.active}`,
        sql.fragment`updated_at = now()`,
      ].filter((f) => f !== false);
      await db.query(sql.unsafe`UPDATE notification_channels SET ${sql.join(sets, sql.fragment`, `)} WHERE tenant_id = ${tenantId} AND id = ${id}`);
      return one(id);
    },

    deleteChannel: (id: string) => db.query(sql.unsafe`DELETE FROM notification_channels WHERE tenant_id = ${tenantId} AND id = ${id}`),

    findSecretsEncrypted: (id: string) =>
      db.oneFirst(sql.type(z.object({ s: z.string() }))`SELECT secrets_encrypted AS s FROM notification_channels WHERE tenant_id = ${tenantId} AND id = ${id}`),

    /** A recorded event in the shape the channel formats take (as the delivery activity reads it). */
    findChannelEvent: (eventId: string) =>
      db.one(sql.type(ChannelEventRow)`
        SELECT id, type, to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "occurredAt", tenant_id AS "tenantId",
          environment_id AS "environmentId", jsonb_build_object('type', actor->>'type', 'id', coalesce(actor->>'id', '')) AS actor, subject, data
        FROM events WHERE tenant_id = ${tenantId} AND id = ${eventId}`),
  };
}
