// The HTTP request of a webhook delivery: the body `{ id, type, createdAt, data }`, signed over the exact
// bytes sent with one v1 per active secret.
import { signWebhookPayload } from './webhook-signature.js';

export interface WebhookEvent {
  id: string;
  type: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

export function buildWebhookRequest(event: WebhookEvent, deliveryId: string, secrets: string[], nowSeconds = Math.floor(Date.now() / 1000)) {
  const body = JSON.stringify({ id: event.id, type: event.type, createdAt: event.occurredAt, data: event.data });
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'iam-service-webhooks/1',
      'x-service-signature': signWebhookPayload(body, secrets, nowSeconds),
      'x-service-event-id': event.id,
      'x-service-event-type': event.type,
      'x-service-delivery-id': deliveryId,
    },
  };
}
