import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { WebhookEndpoint } from './rows.ts';
import { selectPage, type PageRequest } from '../../shared/pages.ts';

const columns = sql.fragment`
  w.id, w.tenant_id AS "tenantId", w.environment_id AS "environmentId", w.url, w.description, w.event_types AS "eventTypes",
  w.active, w.disabled_reason AS "disabledReason", w.disabled_at AS "disabledAt", w.failing_since AS "failingSince",
  ARRAY(SELECT s.prefix FROM webhook_secrets s WHERE s.endpoint_id = w.id AND (s.expires_at IS NULL OR s.expires_at > now()) ORDER BY s.created_at DESC) AS "secretPrefixes",
  w.created_at AS "createdAt", w.updated_at AS "updatedAt"`;

/** Why the service (not a user) disabled an endpoint. */
export type DisabledReason = 'gone' | 'failing' | 'backlog';

export interface EndpointChanges {
  url?: string;
  description?: string | null;
  eventTypes?: string[];
  environmentId?: string | null;
  active?: boolean;
}

/** Queries of one tenant's webhook endpoints: every statement is bound to `tenantId`. */
export function createWebhookEndpointQueries(db: CommonQueryMethods, tenantId: string) {
  const one = (id: string) => db.one(sql.type(WebhookEndpoint)`SELECT ${columns} FROM webhook_endpoints w WHERE w.tenant_id = ${tenantId} AND w.id = ${id}`);
  return {
    findEndpoint: (id: string) =>
      db.maybeOne(sql.type(WebhookEndpoint)`SELECT ${columns} FROM webhook_endpoints w WHERE w.id = ${id} AND w.tenant_id = ${tenantId}`),

    lockEndpoint: (id: string) => db.query(sql.unsafe`SELECT 1 FROM webhook_endpoints WHERE tenant_id = ${tenantId} AND id = ${id} FOR UPDATE`),

    findEndpoints: (page: PageRequest) =>
      selectPage(
        db,
        WebhookEndpoint,
        sql.fragment`SELECT ${columns} FROM webhook_endpoints w WHERE w.tenant_id = ${tenantId}`,
        sql.fragment`w.created_at, w.id`,
        page,
      ),

    insertEndpoint: async (e: { environmentId: string | null; url: string; description: string | null; eventTypes: string[]; active: boolean }) => {
      const id = await db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO webhook_endpoints (tenant_id, environment_id, url, description, event_types, active, disabled_reason, disabled_at)
        VALUES (${tenantId}, ${e.environmentId}, ${e.url}, ${e.description}, ${sql.array(e.eventTypes, 'text')}, ${e.active},
          ${e.active ? null : 'manual'}, ${e.active ? null : sql.fragment`now()`})
        RETURNING id`);
      return id;
    },

    updateEndpoint: async (id: string, c: EndpointChanges) => {
      const sets = [
        c.url !== undefined && sql.fragment`url = ${c.url}`,
        c.description !== undefined && sql.fragment`description = ${c.description}`,
        c.eventTypes !== undefined && sql.fragment`event_types = ${sql.array(c.eventTypes, 'text')}`,
        c.environmentId !== undefined && sql.fragment`environment_id = ${c.environmentId}`,
        c.active === true && sql.fragment`active = true, disabled_reason = NULL, disabled_at = NULL, failing_since = NULL`,
        c.active === false && sql.fragment`active = false, disabled_reason = 'manual', disabled_at = now()`,
        sql.fragment`updated_at = now()`,
      ].filter((f) => f !== false);
      await db.query(sql.unsafe`UPDATE webhook_endpoints SET ${sql.join(sets, sql.fragment`, `)} WHERE tenant_id = ${tenantId} AND id = ${id}`);
      return one(id);
    },

    /** Endpoints of a tenant, to hold it to its cap (the caller locks the tenant's endpoints first: lockTenantEndpoints). */
    countEndpoints: () => db.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM webhook_endpoints WHERE tenant_id = ${tenantId}`),

    /** Serialises the creations of a tenant's endpoints (until the transaction ends), so two at once cannot both pass its cap. */
    lockTenantEndpoints: () => db.query(sql.unsafe`SELECT pg_advisory_xact_lock(hashtextextended('webhook_endpoints:' || ${tenantId}, 0))`),

    deleteEndpoint: (id: string) => db.query(sql.unsafe`DELETE FROM webhook_endpoints WHERE tenant_id = ${tenantId} AND id = ${id}`),

    insertSecret: (endpointId: string, secretEncrypted: string, prefix: string) =>
      db.query(sql.unsafe`INSERT INTO webhook_secrets (endpoint_id, secret_encrypted, prefix) VALUES (${endpointId}, ${secretEncrypted}, ${prefix})`),

    /** Ends the current secret after `overlapSeconds` (it keeps signing alongside the new one until then). */
    expireCurrentSecrets: (endpointId: string, overlapSeconds: number) =>
      db.query(sql.unsafe`
        UPDATE webhook_secrets SET expires_at = now() + make_interval(secs => ${overlapSeconds})
        WHERE endpoint_id = ${endpointId} AND (expires_at IS NULL OR expires_at > now() + make_interval(secs => ${overlapSeconds}))`),
  };
}

// unscoped: delivery work (the deliveries' processes, the dispatcher) acts on the endpoints it sends to, by id, across tenants.
export function createWebhookDeliveryEndpointQueries(db: CommonQueryMethods) {
  return {
    findEndpointById: (id: string) => db.maybeOne(sql.type(WebhookEndpoint)`SELECT ${columns} FROM webhook_endpoints w WHERE w.id = ${id}`),

    /** Disables an endpoint the service gave up on ('gone' after a 410, 'failing' after failing too long, 'backlog' over its cap). */
    disableEndpoint: async (id: string, reason: DisabledReason) => {
      const changed = await db.query(sql.unsafe`
        UPDATE webhook_endpoints SET active = false, disabled_reason = ${reason}, disabled_at = now(), updated_at = now()
        WHERE id = ${id} AND active`);
      return changed.rowCount > 0;
    },

    /** Marks endpoints whose attempt failed; returns since when each has been failing. */
    markFailing: async (ids: string[]) =>
      new Map(
        (
          await db.any(sql.type(z.object({ id: z.uuid(), since: z.string() }))`
          UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, now())
          WHERE id = ANY(${sql.array(ids, 'uuid')}) RETURNING id, failing_since AS since`)
        ).map((r) => [r.id, r.since]),
      ),

    markHealthy: (ids: string[]) =>
      db.query(sql.unsafe`UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ANY(${sql.array(ids, 'uuid')}) AND failing_since IS NOT NULL`),
  };
}
