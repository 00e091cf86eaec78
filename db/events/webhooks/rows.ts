import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../../shared/rows.ts';

export const WebhookEndpoint = z
  .object({
    id: uuid,
    tenantId: uuid,
    environmentId: uuid.nullable(),
    url: z.string(),
    description: z.string().nullable(),
    eventTypes: z.array(z.string()),
    active: z.boolean(),
    disabledReason: z
      .enum(['manual', 'gone', 'failing', 'backlog'])
      .nullable()
      .describe('Why the endpoint is inactive: by a user, answered 410, failing too long, or too many deliveries waiting for it'),
    disabledAt: nullableTimestamp,
    failingSince: nullableTimestamp,
    secretPrefixes: z.array(z.string()).describe('Display prefixes of the signing secrets in use (two during a rotation overlap)'),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

/** Where a delivery stands, whatever its target (an endpoint, a channel, an add-on). */
export const deliveryProgress = {
  status: z.enum(['pending', 'succeeded', 'failed']),
  attemptCount: z.number().int(),
  lastAttemptAt: nullableTimestamp,
  nextAttemptAt: nullableTimestamp,
  completedAt: nullableTimestamp,
  failureReason: z.string().nullable(),
};

export const Delivery = z
  .object({
    id: uuid,
    tenantId: uuid,
    eventId: uuid,
    eventType: z.string(),
    endpointId: uuid.nullable(),
    channelId: uuid.nullable(),
    ...deliveryProgress,
    redeliveryOf: uuid.nullable(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'WebhookDelivery' });
export type Delivery = z.infer<typeof Delivery>;

export const DeliveryAttempt = z
  .object({
    attempt: z.number().int(),
    startedAt: isoTimestamp,
    durationMs: z.number().int(),
    statusCode: z.number().int().nullable(),
    error: z.string().nullable().describe('Network error, timeout or refusal, when there was no HTTP status'),
    responseExcerpt: z.string().nullable().describe('First 2 KiB of the response body'),
  })
  .meta({ id: 'WebhookDeliveryAttempt' });
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;

export const NotificationChannel = z
  .object({
    id: uuid,
    tenantId: uuid,
    environmentId: uuid.nullable(),
    kind: z.enum(['webhook', 'slack', 'teams', 'pagerduty', 'datadog']),
    name: z.string(),
    eventTypes: z.array(z.string()),
    config: z.record(z.string(), z.unknown()),
    secretHints: z.record(z.string(), z.string()).describe('Masked hints of the secrets; the secrets are never returned'),
    active: z.boolean(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'NotificationChannel' });
export type NotificationChannel = z.infer<typeof NotificationChannel>;
