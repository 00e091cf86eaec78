import { z } from 'zod';
import type { Cursor } from '../../../../db/events/webhooks/deliveries.ts';
import { Delivery, DeliveryAttempt, WebhookEndpoint } from '../../../../db/events/webhooks/rows.ts';
import { cursorPageOf, cursorParam, encodeCursor, pageOf } from '../../../common/schemas.ts';

export { Delivery, DeliveryAttempt, WebhookEndpoint };

export const EventTypePatterns = z
  .array(z.string().regex(/^(\*|[a-z0-9_]+(\.[a-z0-9_]+)*(\.\*)?)$/, 'must be an event type, a prefix such as tenant.*, or *'))
  .min(1, 'must name at least one event type')
  .max(100);

const url = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000);

export const CreateWebhookBody = z
  .strictObject({
    url,
    description: z.string().max(2000).nullable().optional(),
    eventTypes: EventTypePatterns,
    environmentId: z.uuid().nullable().optional().describe('Only events of this environment; all of the tenant when absent'),
    active: z.boolean().optional(),
  })
  .meta({ id: 'CreateWebhookEndpointRequest' });

export const UpdateWebhookBody = z
  .strictObject({
    url: url.optional(),
    description: z.string().max(2000).nullable().optional(),
    eventTypes: EventTypePatterns.optional(),
    environmentId: z.uuid().nullable().optional(),
    active: z.boolean().optional().describe('true re-enables a disabled endpoint and redelivers what its disabling cut short'),
  })
  .meta({ id: 'UpdateWebhookEndpointRequest' });

export const WebhookParams = z.strictObject({ tenantId: z.uuid(), webhookId: z.uuid() });
export const DeliveryParams = WebhookParams.extend({ deliveryId: z.uuid() });

export const WebhookResponse = z.object({ endpoint: WebhookEndpoint }).meta({ id: 'WebhookEndpointResponse' });
export const WebhookWithSecretResponse = z
  .object({ endpoint: WebhookEndpoint, secret: z.string().describe('The whsec_ signing secret, shown only in this response') })
  .meta({ id: 'WebhookEndpointWithSecretResponse' });
export const WebhooksList = pageOf('endpoints', WebhookEndpoint).meta({ id: 'WebhookEndpointsList' });

// Delivery cursors are `d:<id>`: the last (oldest) delivery returned.
export const encodeDeliveryCursor = (last: Cursor) => encodeCursor(`d:${last.id}`);

export const DeliveriesQuery = z.strictObject({
  cursor: cursorParam(/^d:([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/, (m): Cursor => ({ id: m[1]! })).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  status: z.enum(['pending', 'succeeded', 'failed']).optional(),
});
export type DeliveriesQuery = z.infer<typeof DeliveriesQuery>;
export const DeliveriesList = cursorPageOf('deliveries', Delivery).meta({ id: 'WebhookDeliveriesList' });
export const DeliveryResponse = z.object({ delivery: Delivery }).meta({ id: 'WebhookDeliveryResponse' });
export const DeliveryDetail = z.object({ delivery: Delivery, attempts: z.array(DeliveryAttempt) }).meta({ id: 'WebhookDeliveryDetail' });
export const RecoverBody = z
  .strictObject({ since: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }) })
  .meta({ id: 'RecoverWebhookRequest' });
export const RecoverResponse = z.object({ deliveries: z.array(Delivery) }).meta({ id: 'RecoverWebhookResponse' });
