import type { ChannelConfig, ChannelSecrets } from '../channel-kinds.ts';
import { signWebhookPayload } from '../../webhook-signature.js';
import { type ChannelEvent, type ChannelRequest, JSON_HEADERS } from './summary.ts';

export function buildGenericWebhookRequest(
  config: ChannelConfig<'webhook'>,
  secrets: ChannelSecrets<'webhook'>,
  event: ChannelEvent,
  deliveryId: string,
  nowSeconds: number,
): ChannelRequest {
  if (!secrets.signingSecret) throw new Error('webhook channel has no signing secret');
  const body = JSON.stringify({ id: event.id, type: event.type, createdAt: event.occurredAt, data: event.data });
  return {
    url: config.url,
    headers: {
      ...JSON_HEADERS,
      'X-Service-Signature': signWebhookPayload(body, [secrets.signingSecret], nowSeconds),
      'X-Service-Event-Id': event.id,
      'X-Service-Event-Type': event.type,
      'X-Service-Delivery-Id': deliveryId,
    },
    body,
  };
}
