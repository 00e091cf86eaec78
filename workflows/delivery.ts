// Delivers events to webhook endpoints and notification channels on a retry schedule.
// A batch process makes the first attempt of many deliveries at once; each delivery whose first attempt
// fails continues in a process of its own (`webhook-delivery:<id>`) from its second attempt.
import type { DeliveryBatchInput, DeliveryInput } from '../lib/processes/contracts.ts';
import type { ProcessContext } from './port.ts';
import { INFRASTRUCTURE_RETRY } from './port.ts';

export type { DeliveryBatchInput, DeliveryInput } from '../lib/processes/contracts.ts';

export async function delivery(ctx: ProcessContext, input: DeliveryInput): Promise<'succeeded' | 'failed'> {
  const { scheduleMs } = input;
  const first = input.firstAttempt ?? 1;
  let delay = input.firstDelayMs ?? scheduleMs[first - 1] ?? 0;
  for (let attempt = first; attempt <= scheduleMs.length; attempt++) {
    if (delay > 0) await ctx.sleep(delay);
    const nextDelayMs = attempt < scheduleMs.length ? (scheduleMs[attempt] ?? 0) : null;
    const result = await ctx.run('attemptDelivery', { deliveryId: input.deliveryId, attempt, nextDelayMs }, INFRASTRUCTURE_RETRY);
    if (result.done) return result.status;
    delay = result.nextDelayMs;
  }
  return 'failed';
}

export async function deliveryBatch(ctx: ProcessContext, input: DeliveryBatchInput): Promise<{ retrying: number }> {
  const { scheduleMs } = input;
  if ((scheduleMs[0] ?? 0) > 0) await ctx.sleep(scheduleMs[0]!);
  const nextDelayMs = scheduleMs.length > 1 ? (scheduleMs[1] ?? 0) : null;
  const retries = await ctx.run('attemptBatch', { batchId: input.batchId, nextDelayMs }, INFRASTRUCTURE_RETRY);
  if (retries.length > 0) await ctx.run('continueDeliveries', { retries, scheduleMs }, INFRASTRUCTURE_RETRY);
  return { retrying: retries.length };
}
