// The service disabling an endpoint it gives up on: the endpoint, its pending deliveries (failed as 'endpoint
// disabled', which enabling it again redelivers), the audit entry and the `webhook.endpoint.disabled` event, in the
// caller's transaction.
import type { CommonQueryMethods } from 'slonik';
import { recordChange } from '../../shared/changes.ts';
import { createDeliveryQueries } from './deliveries.ts';
import { createWebhookDeliveryEndpointQueries, type DisabledReason } from './queries.ts';

/** Disables `endpointId` for `reason` (said in a sentence in the event); false when it was inactive already. */
export async function disableEndpointFor(trx: CommonQueryMethods, endpointId: string, reason: DisabledReason, sentence: string): Promise<boolean> {
  const endpoints = createWebhookDeliveryEndpointQueries(trx);
  if (!(await endpoints.disableEndpoint(endpointId, reason))) return false;
  await createDeliveryQueries(trx).settleAllPendingOfEndpoint(endpointId, 'endpoint disabled');
  const endpoint = (await endpoints.findEndpointById(endpointId))!; // disabled just now, in this transaction
  await recordChange(trx, {
    actor: { type: 'system', id: 'webhook-delivery' },
    action: 'webhook.endpoint.disable',
    resource: { type: 'webhook_endpoint', id: endpointId },
    scope: { tenantId: endpoint.tenantId, environmentId: endpoint.environmentId },
    after: { active: false, disabledReason: reason },
    event: { type: 'webhook.endpoint.disabled', data: { endpoint, reason: sentence } },
  });
  return true;
}
