// Delivers one event to one webhook endpoint or notification channel on a retry schedule.
import type { ProcessContext } from './port.ts';
import { INFRASTRUCTURE_RETRY } from './port.ts';

export interface DeliveryInput {
  deliveryId: string;
  /** Delays before each attempt, in ms: the first is usually 0. */
  scheduleMs: number[];
}

export async function delivery(ctx: ProcessContext, input: DeliveryInput): Promise<'succeeded' | 'failed'> {
  const { scheduleMs } = input;
  let delay = scheduleMs[0] ?? 0;
  for (let attempt = 1; attempt <= scheduleMs.length; attempt++) {
    if (delay > 0) await ctx.sleep(delay);
    const nextDelayMs = attempt < scheduleMs.length ? (scheduleMs[attempt] ?? 0) : null;
    const result = await ctx.run('attemptDelivery', { deliveryId: input.deliveryId, attempt, nextDelayMs }, INFRASTRUCTURE_RETRY);
    if (result.done) return result.status;
    delay = result.nextDelayMs;
  }
  return 'failed';
}
