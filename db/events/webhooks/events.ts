// Events of webhook endpoints and their deliveries, assembled into the event catalog (db/event-catalog.ts).
// An endpoint shows only the display prefixes of its signing secrets.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { uuid } from '../../shared/rows.ts';
import { WebhookEndpoint } from './rows.ts';

// Loose objects: a field added to an event later never breaks a reader of the catalog or an emitter.
const endpoint = z.looseObject({ endpoint: WebhookEndpoint });

export const WEBHOOK_EVENTS = {
  'webhook.endpoint.created': { description: 'A webhook endpoint was created.', data: endpoint },
  'webhook.endpoint.updated': { description: 'A webhook endpoint was changed.', data: endpoint },
  'webhook.endpoint.deleted': { description: 'A webhook endpoint was deleted; `endpoint` is its last state.', data: endpoint },
  'webhook.endpoint.secret_rotated': {
    description: 'The signing secret of a webhook endpoint was replaced (the old one overlaps for a while).',
    data: endpoint,
  },
  'webhook.endpoint.disabled': {
    description: 'The service disabled a webhook endpoint: it answered 410 Gone, every delivery failed for too long, or too many deliveries waited for it.',
    data: endpoint.extend({ reason: z.string().describe('Why the endpoint was disabled, in a sentence') }),
  },
  'webhook.endpoint.enabled': { description: 'A disabled webhook endpoint was enabled again.', data: endpoint },
  'webhook.endpoint.recovered': {
    description: 'The failed deliveries of an endpoint since a point in time were redelivered.',
    data: z.looseObject({
      endpointId: uuid,
      since: z.string().describe('ISO 8601 time from which failed deliveries were redelivered'),
      deliveryIds: z.array(z.string()).describe('The new deliveries'),
    }),
  },
  'webhook.delivery.redelivered': {
    description: 'A delivery was sent again as a new, freshly signed delivery.',
    data: z.looseObject({ deliveryId: uuid.describe('The new delivery'), redeliveryOf: uuid.describe('The delivery it repeats') }),
  },
  'webhook.test': {
    description: 'A test event sent to one endpoint on request (never fanned out to subscriptions).',
    data: z.looseObject({ message: z.string() }),
  },
} as const satisfies Record<string, EventTypeEntry>;
