// Deliveries of one webhook endpoint: listing and inspection, test sends, redelivery and recovery.
// New deliveries are rows; the dispatcher starts their processes (so nothing is lost between commit and start).
import type { DatabasePool } from 'slonik';
import { ApiError, orNotFound } from '../../../errors.ts';
import { createDeliveryQueries, createTenantDeliveryQueries, type DeliveryOwner } from '../../../../db/events/webhooks/deliveries.ts';
import type { CommonQueryMethods } from 'slonik';
import { record, type TenantCaller } from '../../../access/caller.ts';
import { encodeDeliveryCursor, type DeliveriesQuery } from './schemas.ts';
import type { WebhookService } from './service.ts';
import { keysetPage } from '../../../common/schemas.ts';

/** One page of a webhook endpoint's or channel's deliveries, newest first, with an opaque keyset cursor. */
export async function pageDeliveries(db: CommonQueryMethods, tenantId: string, target: DeliveryOwner, query: DeliveriesQuery) {
  const rows = await createTenantDeliveryQueries(db, tenantId).findDeliveries(target, { status: query.status, after: query.cursor, limit: query.limit + 1 });
  return keysetPage('deliveries', rows, query.limit, encodeDeliveryCursor);
}

/** A delivery of that endpoint or channel with every attempt. */
export async function deliveryWithAttempts(db: CommonQueryMethods, tenantId: string, target: DeliveryOwner, deliveryId: string) {
  const delivery = await orNotFound(createTenantDeliveryQueries(db, tenantId).findDelivery(deliveryId, target), 'delivery', deliveryId);
  return { delivery, attempts: await createDeliveryQueries(db).findAttempts(deliveryId) };
}

export function createDeliveryService(pool: DatabasePool, webhooks: WebhookService) {
  return {
    list: async (caller: TenantCaller, endpointId: string, query: DeliveriesQuery) => {
      await webhooks.find(caller, endpointId);
      return pageDeliveries(pool, caller.scope.tenant.id, { endpointId }, query);
    },

    get: async (caller: TenantCaller, endpointId: string, deliveryId: string) => {
      await webhooks.find(caller, endpointId);
      return deliveryWithAttempts(pool, caller.scope.tenant.id, { endpointId }, deliveryId);
    },

    /** A new delivery of the same event, signed afresh when it is sent. */
    redeliver: async (caller: TenantCaller, endpointId: string, deliveryId: string) => {
      await webhooks.find(caller, endpointId);
      const original = await orNotFound(
        createTenantDeliveryQueries(pool, caller.scope.tenant.id).findDelivery(deliveryId, { endpointId }),
        'delivery',
        deliveryId,
      );
      return pool.transaction(async (trx) => {
        const id = await createDeliveryQueries(trx).insertRedelivery(original);
        await record(trx, caller, {
          action: 'webhook.delivery.redeliver',
          resource: { type: 'webhook_delivery', id },
          after: { redeliveryOf: original.id },
          event: { type: 'webhook.delivery.redelivered', data: { deliveryId: id, redeliveryOf: original.id } },
        });
        return (await createTenantDeliveryQueries(trx, caller.scope.tenant.id).findDelivery(id, { endpointId }))!;
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
        const tenantDeliveries = createTenantDeliveryQueries(trx, caller.scope.tenant.id);
        return Promise.all(ids.map(async (id) => (await tenantDeliveries.findDelivery(id, { endpointId }))!));
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
        return (await createTenantDeliveryQueries(trx, caller.scope.tenant.id).findDelivery(id, { endpointId }))!;
      });
    },
  };
}

export type DeliveryService = ReturnType<typeof createDeliveryService>;
