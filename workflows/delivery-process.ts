// The definitions of the two delivery kinds (their logic is workflows/delivery.ts): a batch makes the first attempt
// of many deliveries, and each one whose first attempt failed continues in a `webhook-delivery` process of its own.
import { delivery, deliveryBatch } from './delivery.ts';
import { defineProcess, duration, type PlannedStart } from './definition.ts';

export const webhookDeliveryProcess = defineProcess('webhook-delivery', {
  workflowType: 'webhookDeliveryWorkflow',
  logic: delivery,
  activities: {
    attemptDelivery: {
      summary: (i, attempts) => `attempt ${i.attempt}${attempts ? `/${attempts}` : ''} of delivery ${i.deliveryId}`,
      outcome: (o, i, attempts) => {
        const got = typeof o.statusCode === 'number' ? `got ${o.statusCode}` : typeof o.error === 'string' ? `failed (${o.error})` : 'failed';
        const attempt = `attempt ${i.attempt}${attempts ? `/${attempts}` : ''} ${got}`;
        return o.done ? `${attempt}: ${o.status}` : attempt;
      },
      attempt: (i, o) => ({ attempt: i.attempt, nextDelayMs: o.done ? null : o.nextDelayMs }),
    },
  },
  // Pending deliveries whose process was started: before their first attempt their batch makes it (`delivery-batch`),
  // after it their own process continues; a delivery's own process is started by its batch once the batch has made
  // every first attempt.
  sweep: {
    rows: 'pendingDeliveries',
    plan: async (deliveries, settings, status) => {
      const starts: PlannedStart[] = [];
      const batches = new Set<string>();
      for (const d of deliveries) {
        if (d.attemptCount === 0) {
          if (d.batchId && !batches.has(d.batchId) && ['failed', 'unknown'].includes(await status('delivery-batch', d.batchId))) {
            batches.add(d.batchId);
            starts.push({ kind: 'delivery-batch', entityId: d.batchId, tenantId: null, input: { batchId: d.batchId, scheduleMs: settings.scheduleMs } });
          }
          continue;
        }
        const own = await status('webhook-delivery', d.id);
        const batchRunning = own === 'unknown' && d.batchId !== null && (await status('delivery-batch', d.batchId)) === 'running';
        if (own === 'failed' || (own === 'unknown' && !batchRunning)) {
          const input = { deliveryId: d.id, scheduleMs: settings.scheduleMs, firstAttempt: d.attemptCount + 1, firstDelayMs: d.nextDelayMs };
          starts.push({ kind: 'webhook-delivery', entityId: d.id, tenantId: d.tenantId, input });
        }
      }
      return starts;
    },
  },
  scope: (i) => ({ of: 'delivery', deliveryId: i.deliveryId }),
  describe: (i, entityId, scope) => ({
    summary: `Delivers event delivery ${entityId} to a ${scope.channelId ? 'notification channel' : scope.endpointId ? 'webhook endpoint' : 'forwarding add-on'}, retrying (${i.scheduleMs.length} attempts)`,
    details:
      `Retries delivery \`${entityId}\` from attempt ${i.firstAttempt ?? 1} of ${i.scheduleMs.length}, on the schedule ${i.scheduleMs.map(duration).join(', ')}; ` +
      'stops when an attempt succeeds, the endpoint answers 410 Gone or is disabled, or the last attempt fails. ' +
      'Current details show the last attempt and when the next one is due (search attributes `DeliveryAttempt`, `NextAttemptAt`).',
  }),
  temporalStart: (input) => {
    const attempts = input.scheduleMs.length;
    const first = input.firstAttempt ?? 1;
    // Started by a batch whose first attempt failed: findable at once by its attempt and next attempt time.
    if (first === 1) return { attempts, nextAttempt: first };
    return {
      attempts,
      nextAttempt: first,
      status: `attempt ${first - 1}/${attempts} failed`,
      attempted: { attempt: first - 1, nextDelayMs: input.firstDelayMs ?? input.scheduleMs[first - 1] ?? 0 },
    };
  },
});

export const deliveryBatchProcess = defineProcess('delivery-batch', {
  workflowType: 'deliveryBatchWorkflow',
  logic: deliveryBatch,
  activities: {
    attemptBatch: {
      summary: (i) => `first attempt of every delivery of batch ${i.batchId}`,
      outcome: (o) => `first attempts made, ${o.length} to retry`,
    },
    continueDeliveries: { summary: (i) => `start a retrying process for ${i.retries.length} failed deliveries` },
  },
  sweep: { none: 'the webhook-delivery sweep starts the batch of deliveries not attempted yet' },
  scope: () => ({ of: 'tenant' }),
  describe: (_i, entityId) => ({
    summary: `First attempt of the new deliveries of a tenant (batch ${entityId})`,
    details: `Sends the first attempt of every delivery of batch \`${entityId}\` at once; each one that fails continues in a \`webhook-delivery\` workflow of its own.`,
  }),
});
