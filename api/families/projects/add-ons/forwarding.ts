// The forwarding add-ons (segment, analytics): their test call, made now against the vendor's API in the same shape as
// a forwarded event, and the listing of their deliveries (sent by the delivery processes, see worker/dispatcher.ts).
import type { DatabasePool } from 'slonik';
import { buildTestRequest } from '../../../../lib/forwarding/build-request.ts';
import { FORWARDING_VENDORS, type ForwardingConfig, type ForwardingKind, type ForwardingSecrets } from '../../../../lib/forwarding/kinds.ts';
import { postOutbound, type OutboundOptions } from '../../../../lib/outbound/http-client.ts';
import { createAddOnDeliveryQueries } from '../../../../db/add-ons/deliveries.ts';
import { createDeliveryQueries } from '../../../../db/events/webhooks/deliveries.ts';
import type { EnvironmentAddOn } from '../../../../db/add-ons/rows.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { keysetPage } from '../../../common/schemas.ts';
import { ApiError, orNotFound } from '../../../errors.ts';
import { encodeDeliveryCursor, type DeliveriesQuery } from './schemas.ts';

/** Calls the vendor now with one test event; 2xx is success, 401/403 a refused key; unreachable is a 502 (recorded first). */
export async function testForwarding(
  pool: DatabasePool,
  caller: EnvironmentCaller,
  addOn: EnvironmentAddOn,
  secrets: ForwardingSecrets,
  outbound: Pick<OutboundOptions, 'timeoutMs' | 'allowPrivate'>,
) {
  const kind = addOn.kind as ForwardingKind;
  const { url, body, headers } = buildTestRequest(kind, addOn.config as ForwardingConfig, secrets);
  const result = await postOutbound(url, body, headers, outbound);
  const reached = result.statusCode !== null;
  const success = result.ok;
  const errorCodes = reached && !success ? [`http_${result.statusCode}`] : [];
  const secretAccepted = reached && result.statusCode !== 401 && result.statusCode !== 403;
  const outcome = { reached, success, errorCodes, secretAccepted, statusCode: result.statusCode, error: result.error };
  await pool.transaction((trx) =>
    record(trx, caller, {
      action: 'add_on.test',
      resource: { type: 'add_on', id: addOn.id },
      event: { type: 'add_on.tested', data: { addOn, ...outcome } },
    }),
  );
  if (!reached) throw new ApiError(502, 'add_on.test_failed', `The ${kind} API at ${FORWARDING_VENDORS[kind].path} could not be reached: ${result.error}`);
  return { success, errorCodes, secretAccepted, statusCode: result.statusCode };
}

/** A page of the add-on's deliveries, newest first, and one delivery with every attempt. */
export function addOnDeliveries(pool: DatabasePool) {
  return {
    list: async (caller: EnvironmentCaller, addOn: EnvironmentAddOn, query: DeliveriesQuery) => {
      const rows = await createAddOnDeliveryQueries(pool, caller.scope.tenant.id, caller.scope.environmentId).list(addOn.id, {
        status: query.status,
        after: query.cursor,
        limit: query.limit + 1,
      });
      return keysetPage('deliveries', rows, query.limit, encodeDeliveryCursor);
    },
    get: async (caller: EnvironmentCaller, addOn: EnvironmentAddOn, deliveryId: string) => {
      const delivery = await orNotFound(
        createAddOnDeliveryQueries(pool, caller.scope.tenant.id, caller.scope.environmentId).find(addOn.id, deliveryId),
        'delivery',
        deliveryId,
      );
      return { delivery, attempts: await createDeliveryQueries(pool).findAttempts(deliveryId) };
    },
  };
}
