// Deliveries of one webhook endpoint: listing and inspection, test sends, redelivery and recovery.
// New deliveries are rows; the dispatcher starts their processes (so nothing is lost between commit and start).
import type { DatabasePool } from 'slonik';
import { ApiError, orNotFound } from '../../../errors.ts';
import { createDeliveryQueries } from '../../../../db/events/webhooks/deliveries.ts';
import type { CommonQueryMethods } from 'slonik';
import { record, type TenantCaller } from '../../../access/caller.ts';
import { encodeDeliveryCursor, type DeliveriesQuery } from './schemas.ts';
import type { WebhookService } from './service.ts';
import { keysetPage } from '../../../common/schemas.ts';

type Target = { endpointId: string } | { channelId: string };

/** One page of a webhook endpoint's or channel's deliveries, newest first, with an opaque keyset cursor. */
export async function pageDeliveries(db: CommonQueryMethods, target: Target, query: DeliveriesQuery) {
  const rows = await createDeliveryQueries(db).findDeliveries(target, { status: query.status, after: query.cursor, limit: query.limit + 1 });
  return keysetPage('deliveries', rows, query.limit, encodeDeliveryCursor);
}

/** A delivery of that endpoint or channel with every attempt. */
export async function deliveryWithAttempts(db: CommonQueryMethods, target: Target, deliveryId: string) {
  const delivery = await orNotFound(createDeliveryQueries(db).findDelivery(deliveryId, target), 'delivery', deliveryId);
  return { delivery, attempts: await createDeliveryQueries(db).findAttempts(deliveryId) };
}

export function createDeliveryService(pool: DatabasePool, webhooks: WebhookService) {
  return {
    list: async (caller: TenantCaller, endpointId: string, query: DeliveriesQuery) => {
      await webhooks.find(caller, endpointId);
      return pageDeliveries(pool, { endpointId }, query);
    },

    get: async (caller: TenantCaller, endpointId: string, deliveryId: string) => {
      await webhooks.find(caller, endpointId);
      return deliveryWithAttempts(pool, { endpointId }, deliveryId);
    },

    /** A new delivery of the same event, signed afresh when it is sent. */
    redeliver: async (caller: TenantCaller, endpointId: string, deliveryId: string) => {
      await webhooks.find(caller, endpointId);
      const original = await orNotFound(createDeliveryQueries(pool).findDelivery(deliveryId, { endpointId }), 'delivery', deliveryId);
      return pool.transaction(async (trx) => {
        const id = await createDeliveryQueries(trx).insertRedelivery(original);
        await record(trx, caller, {
          action: 'webhook.delivery.redeliver',
          resource: { type: 'webhook_delivery', id },
          after: { redeliveryOf: original.id },
          event: { type: 'webhook.delivery.redelivered', data: { deliveryId: id, redeliveryOf: original.id } },
        });
        return (await createDeliveryQueries(trx).findDelivery(id, { endpointId }))!;
      });
    },

    /** Redelivers every failed delivery since `since` whose event was not delivered since. */
    recover: async (caller: TenantCaller, endpointId: string, since: string) => {
      const endpoint = await webhooks.find(caller, endpointId);
      if (!endpoint.active) throw new ApiError(409, 'webhook.disabled', 'The endpoint is disabled; enable it (PATCH active=true) to recover its deliveries.');
      return pool.transaction(async (trx) => {
        const queries = createDeliveryQueries(trx);
        const failed = await queries.findFailedSince(endpointId, since);
        const ids = [];
        for (const d of failed) ids.push(await queries.insertRedelivery(d));
        await record(trx, caller, {
          action: 'webhook.endpoint.recover',
          resource: { type: 'webhook_endpoint', id: endpointId },
          scope: { environmentId: endpoint.environmentId },
          after: { since, deliveryIds: ids },
          event: { type: 'webhook.endpoint.recovered', data: { endpointId, since, deliveryIds: ids } },
        });
        return Promise.all(ids.map(async (id) => (await queries.findDelivery(id, { endpointId }))!));
      });
    },

    /** Sends a `webhook.test` event to this endpoint only. */
    test: async (caller: TenantCaller, endpointId: string) => {
      const endpoint = await webhooks.find(caller, endpointId);
      if (!endpoint.active) throw new ApiError(409, 'webhook.disabled', 'The endpoint is disabled; enable it to send a test event.');
      return pool.transaction(async (trx) => {
        const { eventId } = await record(trx, caller, {
          action: 'webhook.endpoint.test',
          resource: { type: 'webhook_endpoint', id: endpointId },
          scope: { environmentId: endpoint.environmentId },
          event: { type: 'webhook.test', data: { message: 'A test event sent from the API.', endpointId } },
        });
        const id = await createDeliveryQueries(trx).insertDelivery({ tenantId: caller.scope.tenant.id, eventId, endpointId });
        return (await createDeliveryQueries(trx).findDelivery(id, { endpointId }))!;
      });
    },
  };
}

export type DeliveryService = ReturnType<typeof createDeliveryService>;
