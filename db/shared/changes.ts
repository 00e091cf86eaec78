// The one helper every mutation calls inside its own transaction: an audit entry and an event,
// committed (or rolled back) together with the change itself.
import { sql } from 'slonik';
import type { CommonQueryMethods } from 'slonik';
import { currentTraceparent } from '../../lib/telemetry.ts';
import { eventTypeSchema, type EventOf, type EventType } from '../event-catalog.ts';

export interface Actor {
  type: 'service_account' | 'user' | 'organization_key' | 'system' | 'provisioning_token' | 'api_secret' | 'portal_session';
  id: string | null;
}

export interface RequestOrigin {
  ip?: string | null;
  userAgent?: string | null;
  requestId?: string | null;
}

export interface Change<T extends EventType = EventType> {
  actor: Actor;
  origin?: RequestOrigin;
  action: string; // e.g. tenant.create
  resource: { type: string; id: string | null };
  scope: { organizationId?: string | null; tenantId?: string | null; environmentId?: string | null };
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  /** Who the actor acted for, when it impersonated a user (audit entries only). */
  onBehalfOf?: { type: 'user'; id: string };
  /** The event emitted with the change: a type of the event catalog, with the data of that type. */
  event: EventOf<T>;
}

// A name that holds a secret: anything with secret, password or private in it, and names ending in a token, a hash or
// an API/access/secret key. Not a lifetime named after tokens (`accessTokenLifetimeSeconds`) or a plain `key`
// (a form's or a role's key names it; it is not a credential).
const SECRET_FIELD = /secret|password|private|(?:token|hash|api_?key|access_?key|secret_?key)$/i;

// A flag is never a secret (`passwordAuthEnabled` says whether, not what).
function mask(value: Record<string, unknown> | null | undefined): Record<string, unknown> | null {
  if (!value) return null;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_FIELD.test(k) && v != null && typeof v !== 'boolean' ? '***' : v]));
}

/** Keeps only the fields that changed (all of them on create and delete). */
export function diff(before: Record<string, unknown> | null | undefined, after: Record<string, unknown> | null | undefined) {
  if (!before || !after) return { before: mask(before), after: mask(after) };
  const changed = Object.keys({ ...before, ...after }).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
  const pick = (o: Record<string, unknown>) => Object.fromEntries(changed.map((k) => [k, o[k] ?? null]));
  return { before: mask(pick(before)), after: mask(pick(after)) };
}

/** Throws unless the event's type is in the catalog and its data matches the catalog's schema. */
export function checkEvent(event: { type: string; data: unknown }): void {
  const schema = eventTypeSchema(event.type);
  if (!schema) throw new Error(`event type ${event.type} is not in the event catalog`);
  const parsed = schema.safeParse(event.data);
  if (!parsed.success) {
    const reasons = parsed.error.issues.map((i) => `${i.path.join('.') || '(data)'}: ${i.message}`).join('; ');
    throw new Error(`event data of ${event.type} does not match the catalog: ${reasons}`);
  }
}

export async function recordChange<T extends EventType>(db: CommonQueryMethods, change: Change<T>): Promise<{ eventId: string }> {
  checkEvent(change.event);
  const { organizationId = null, tenantId = null, environmentId = null } = change.scope;
  const origin = change.origin ?? {};
  // One statement for both rows: a round trip less in every mutation's transaction.
  const eventId = await db.oneFirst(sql.unsafe`
    WITH audit AS (
      INSERT INTO audit_logs (organization_id, tenant_id, environment_id, actor_type, actor_id, action,
        resource_type, resource_id, ip, user_agent, request_id, changes, on_behalf_of_type, on_behalf_of_id)
      VALUES (${organizationId}, ${tenantId}, ${environmentId}, ${change.actor.type}, ${change.actor.id}, ${change.action},
        ${change.resource.type}, ${change.resource.id}, ${origin.ip ?? null}, ${origin.userAgent ?? null},
        ${origin.requestId ?? null}, ${sql.jsonb(diff(change.before, change.after) as never)},
        ${change.onBehalfOf?.type ?? null}, ${change.onBehalfOf?.id ?? null})
    )
    INSERT INTO events (type, organization_id, tenant_id, environment_id, actor, subject, data, trace_context)
    VALUES (${change.event.type}, ${organizationId}, ${tenantId}, ${environmentId}, ${sql.jsonb(change.actor as never)},
      ${sql.jsonb(change.resource as never)}, ${sql.jsonb(change.event.data as never)}, ${currentTraceparent()})
    RETURNING id`);
  return { eventId: eventId as string };
}
