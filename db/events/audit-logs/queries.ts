// Reading the audit log of a tenant or an organization, newest first, by keyset on sequence.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { isoTimestamp, uuid } from '../../shared/rows.ts';

export const AuditLogEntry = z
  .object({
    id: uuid,
    sequence: z.number().int(),
    organizationId: uuid.nullable(),
    tenantId: uuid.nullable(),
    environmentId: uuid.nullable(),
    actor: z.object({ type: z.string(), id: z.string().nullable() }),
    onBehalfOf: z
      .object({ type: z.string(), id: z.string() })
      .nullable()
      .describe('The user the actor acted as, when it used an impersonation token; null otherwise'),
    action: z.string().describe('`<resource>.<verb>`, e.g. `tenant.update`'),
    resource: z.object({ type: z.string(), id: z.string().nullable() }),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    requestId: z.string().nullable(),
    changes: z
      .object({ before: z.record(z.string(), z.unknown()).nullable(), after: z.record(z.string(), z.unknown()).nullable() })
      .nullable()
      .describe('The changed fields before and after (all fields on create and delete); secrets are masked'),
    occurredAt: isoTimestamp,
  })
  .meta({ id: 'AuditLogEntry' });
export type AuditLogEntry = z.infer<typeof AuditLogEntry>;

export type AuditScope = { tenantId: string } | { organizationId: string };

export interface AuditFilter {
  actorId?: string | undefined;
  actorType?: string | undefined;
  action?: string | undefined;
  resourceType?: string | undefined;
  resourceId?: string | undefined;
  occurredAfter?: string | undefined;
  occurredBefore?: string | undefined;
}

// sequence is a bigint; as a JSON number it stays exact up to 2^53.
const columns = sql.fragment`
  a.id, a.sequence::float8 AS sequence, a.organization_id AS "organizationId", a.tenant_id AS "tenantId",
  a.environment_id AS "environmentId", jsonb_build_object('type', a.actor_type, 'id', a.actor_id) AS actor, a.action,
  jsonb_build_object('type', a.resource_type, 'id', a.resource_id) AS resource, a.ip, a.user_agent AS "userAgent",
  a.request_id AS "requestId", a.changes, a.occurred_at AS "occurredAt",
  CASE WHEN a.on_behalf_of_type IS NULL THEN NULL ELSE jsonb_build_object('type', a.on_behalf_of_type, 'id', a.on_behalf_of_id) END AS "onBehalfOf"`;

function conditions(filter: AuditFilter, before: number | null) {
  const where = [sql.fragment`TRUE`];
  if (before !== null) where.push(sql.fragment`a.sequence < ${before}`);
  if (filter.actorId) where.push(sql.fragment`a.actor_id = ${filter.actorId}`);
  if (filter.actorType) where.push(sql.fragment`a.actor_type = ${filter.actorType}`);
  if (filter.action) where.push(sql.fragment`a.action = ${filter.action}`);
  if (filter.resourceType) where.push(sql.fragment`a.resource_type = ${filter.resourceType}`);
  if (filter.resourceId) where.push(sql.fragment`a.resource_id = ${filter.resourceId}`);
  if (filter.occurredAfter) where.push(sql.fragment`a.occurred_at >= ${filter.occurredAfter}::timestamptz`);
  if (filter.occurredBefore) where.push(sql.fragment`a.occurred_at < ${filter.occurredBefore}::timestamptz`);
  return sql.join(where, sql.fragment` AND `);
}

const newestFirst = (limit: number) => sql.fragment`ORDER BY a.sequence DESC LIMIT ${limit}`;

/** The audit log of one tenant, or of one organization (its own entries and those of its tenants). */
export function createAuditLogQueries(db: CommonQueryMethods, scope: AuditScope) {
  const select = (filter: AuditFilter, before: number | null, limit: number) =>
    'tenantId' in scope
      ? sql.type(AuditLogEntry)`
        SELECT ${columns} FROM audit_logs a WHERE a.tenant_id = ${scope.tenantId} AND ${conditions(filter, before)} ${newestFirst(limit)}`
      : sql.type(AuditLogEntry)`
        SELECT ${columns} FROM audit_logs a
        WHERE (a.organization_id = ${scope.organizationId}
          OR a.tenant_id IN (SELECT ot.tenant_id FROM organization_tenants ot WHERE ot.organization_id = ${scope.organizationId}))
          AND ${conditions(filter, before)} ${newestFirst(limit)}`;
  return {
    /** Up to `limit` entries older than sequence `before` (newest first; from the newest when null). */
    findEntries: async (filter: AuditFilter, before: number | null, limit: number) => [...(await db.any(select(filter, before, limit)))],
  };
}
