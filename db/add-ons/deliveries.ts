// Deliveries of events to a forwarding add-on (segment, analytics): rows of `deliveries` like those to webhook endpoints,
// read here bound to the caller's tenant and the add-on's environment. Attempts are read with createDeliveryQueries().findAttempts.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { isoTimestamp, uuid } from '../shared/rows.ts';
import { deliveryProgress } from '../events/webhooks/rows.ts';

export const AddOnDelivery = z
  .object({
    id: uuid,
    addOnId: uuid,
    eventId: uuid,
    eventType: z.string(),
    ...deliveryProgress,
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'AddOnDelivery' });
export type AddOnDelivery = z.infer<typeof AddOnDelivery>;

const columns = sql.fragment`
  d.id, d.add_on_id AS "addOnId", d.event_id AS "eventId", e.type AS "eventType", d.status, d.attempt_count AS "attemptCount",
  d.last_attempt_at AS "lastAttemptAt", d.next_attempt_at AS "nextAttemptAt", d.completed_at AS "completedAt",
  d.failure_reason AS "failureReason", d.created_at AS "createdAt", d.updated_at AS "updatedAt"`;

export function createAddOnDeliveryQueries(db: CommonQueryMethods, tenantId: string, environmentId: string) {
  // The delivery of this tenant, to an add-on of this environment: a foreign add-on's id reads nothing.
  const owned = (addOnId: string) =>
    sql.fragment`d.add_on_id = ${addOnId} AND EXISTS (SELECT 1 FROM add_ons a WHERE a.id = d.add_on_id AND a.environment_id = ${environmentId})`;
  return {
    find: (addOnId: string, deliveryId: string) =>
      db.maybeOne(sql.type(AddOnDelivery)`
        SELECT ${columns} FROM deliveries d JOIN events e ON e.id = d.event_id WHERE d.tenant_id = ${tenantId} AND d.id = ${deliveryId} AND ${owned(addOnId)}`),

    /** Newest first, keyset-paged by (created_at, id) after the delivery `after`. */
    list: async (addOnId: string, filter: { status?: string | undefined; after?: { id: string } | undefined; limit: number }) => [
      ...(await db.any(sql.type(AddOnDelivery)`
        SELECT ${columns} FROM deliveries d JOIN events e ON e.id = d.event_id
        WHERE d.tenant_id = ${tenantId} AND ${owned(addOnId)}
          AND ${filter.status ? sql.fragment`d.status = ${filter.status}` : sql.fragment`true`}
          AND ${filter.after ? sql.fragment`(d.created_at, d.id) < (SELECT c.created_at, c.id FROM deliveries c WHERE c.id = ${filter.after.id})` : sql.fragment`true`}
        ORDER BY d.created_at DESC, d.id DESC LIMIT ${filter.limit}`)),
    ],
  };
}
