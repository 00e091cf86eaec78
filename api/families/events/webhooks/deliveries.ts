// Deliveries of one webhook endpoint: listing and inspection, test sends, redelivery and recovery.
// New deliveries are rows; the dispatcher starts their processes (so nothing is lost between commit and start).
import type { DatabasePool } from 'slonik';
import { ApiError, invalidField, notFound } from '../../../errors.ts';
import { recordChange } from '../../../../db/shared/changes.ts';
import { createDeliveryQueries, type Cursor } from '../../../../db/events/webhooks/deliveries.ts';
import type { CommonQueryMethods } from 'slonik';
import type { Caller } from '../../../access/caller.ts';
import type { WebhookService } from './service.ts';

const encodeCursor = (c: Cursor) => Buffer.from(`d:${c.id}`).toString('base64url');
function decodeCursor(cursor: string): Cursor {
  const id = /^d:([0-9a-f-]{36})$/.exec(Buffer.from(cursor, 'base64url').toString())?.[1];
  if (!id) throw invalidField('querystring.cursor', 'is not a cursor this API returned');
  return { id };
}

type Target = { endpointId: string } | { channelId: string };

/** One page of a webhook endpoint's or channel's deliveries, newest first, with an opaque keyset cursor. */
export async function pageDeliveries(db: CommonQueryMethods, target: Target, query: { cursor?: string; limit: number; status?: string }) {
  const after = query.cursor ? decodeCursor(query.cursor) : undefined;
  const deliveries = await createDeliveryQueries(db).findDeliveries(target, { status: query.status, after, limit: query.limit + 1 });
  const page = deliveries.slice(0, query.limit);
  const last = page.at(-1);
  return { deliveries: page, nextCursor: deliveries.length > query.limit && last ? encodeCursor(last) : null };
}

/** A delivery of that endpoint or channel with every attempt. */
export async function deliveryWithAttempts(db: CommonQueryMethods, target: Target, deliveryId: string) {
  const delivery = await createDeliveryQueries(db).findDelivery(deliveryId, target);
  if (!delivery) throw notFound('delivery', deliveryId);
  return { delivery, attempts: await createDeliveryQueries(db).findAttempts(deliveryId) };
}

export function createDeliveryService(pool: DatabasePool, webhooks: WebhookService) {
  const findDelivery = async (caller: Caller, tenantId: string, endpointId: string, deliveryId: string) => {
    await webhooks.find(caller, tenantId, endpointId);
    const delivery = await createDeliveryQueries(pool).findDelivery(deliveryId, { endpointId });
    if (!delivery) throw notFound('delivery', deliveryId);
    return delivery;
  };

  return {
    list: async (caller: Caller, tenantId: string, endpointId: string, query: { cursor?: string; limit: number; status?: string }) => {
      await webhooks.find(caller, tenantId, endpointId);
      return pageDeliveries(pool, { endpointId }, query);
    },

    get: async (caller: Caller, tenantId: string, endpointId: string, deliveryId: string) => {
      await webhooks.find(caller, tenantId, endpointId);
      return deliveryWithAttempts(pool, { endpointId }, deliveryId);
    },

    /** A new delivery of the same event, signed afresh when it is sent. */
    redeliver: async (caller: Caller, tenantId: string, endpointId: string, deliveryId: string) => {
      const original = await findDelivery(caller, tenantId, endpointId, deliveryId);
      return pool.transaction(async (trx) => {
        const id = await createDeliveryQueries(trx).insertRedelivery(original);
        await recordChange(trx, {
          actor: caller.actor,
          origin: caller.origin,
          action: 'webhook.delivery.redeliver',
          resource: { type: 'webhook_delivery', id },
          scope: { tenantId },
          after: { redeliveryOf: original.id },
          event: { type: 'webhook.delivery.redelivered', data: { deliveryId: id, redeliveryOf: original.id } },
        });
        return (await createDeliveryQueries(trx).findDelivery(id, { endpointId }))!;
      });
    },

    /** Redelivers every failed delivery since `since` whose event was not delivered since. */
    recover: async (caller: Caller, tenantId: string, endpointId: string, since: string) => {
      const endpoint = await webhooks.find(caller, tenantId, endpointId);
      if (!endpoint.active) throw new ApiError(409, 'webhook.disabled', 'The endpoint is disabled; enable it (PATCH active=true) to recover its deliveries.');
      return pool.transaction(async (trx) => {
        const queries = createDeliveryQueries(trx);
        const failed = await queries.findFailedSince(endpointId, since);
        const ids = [];
        for (const d of failed) ids.push(await queries.insertRedelivery(d));
        await recordChange(trx, {
          actor: caller.actor,
          origin: caller.origin,
          action: 'webhook.endpoint.recover',
          resource: { type: 'webhook_endpoint', id: endpointId },
          scope: { tenantId, environmentId: endpoint.environmentId },
          after: { since, deliveryIds: ids },
          event: { type: 'webhook.endpoint.recovered', data: { endpointId, since, deliveryIds: ids } },
        });
        return Promise.all(ids.map(async (id) => (await queries.findDelivery(id, { endpointId }))!));
      });
    },

    /** Sends a `webhook.test` event to this endpoint only. */
    test: async (caller: Caller, tenantId: string, endpointId: string) => {
      const endpoint = await webhooks.find(caller, tenantId, endpointId);
      if (!endpoint.active) throw new ApiError(409, 'webhook.disabled', 'The endpoint is disabled; enable it to send a test event.');
      return pool.transaction(async (trx) => {
        const { eventId } = await recordChange(trx, {
          actor: caller.actor,
          origin: caller.origin,
          action: 'webhook.endpoint.test',
          resource: { type: 'webhook_endpoint', id: endpointId },
          scope: { tenantId, environmentId: endpoint.environmentId },
          event: { type: 'webhook.test', data: { message: 'A test event sent from the API.', endpointId } },
        });
        const id = await createDeliveryQueries(trx).insertDelivery({ tenantId, eventId, endpointId });
        return (await createDeliveryQueries(trx).findDelivery(id, { endpointId }))!;
      });
    },
  };
}

export type DeliveryService = ReturnType<typeof createDeliveryService>;
