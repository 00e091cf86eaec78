// Sends one queued message through its environment's providers: each provider in order gets up to one attempt per
// delay of the schedule (a transient failure, such as an unreachable vendor or a 5xx, waits and tries again); a refusal
// or a provider still failing after its last attempt fails over to the next provider; the message ends `sent` or,
// when no provider is left, `failed`. The database decides: each attempt re-reads the message and acts only while it
// is queued.
import type { MessageSendInput } from '../lib/processes/contracts.ts';
import { defineProcess, duration, restartFailedOrMissing } from './definition.ts';
import type { ProcessContext } from './port.ts';
import { INFRASTRUCTURE_RETRY } from './port.ts';

export type { MessageSendInput } from '../lib/processes/contracts.ts';

export async function messageSend(ctx: ProcessContext, input: MessageSendInput): Promise<'sent' | 'failed' | 'settled'> {
  const { messageId, providers, scheduleMs } = input;
  for (const [p, provider] of providers.entries()) {
    const next = providers[p + 1] ?? null;
    for (const [a, delay] of scheduleMs.entries()) {
      if (delay > 0) await ctx.sleep(delay);
      const attempt = { messageId, provider, attempt: a + 1, lastAttempt: a === scheduleMs.length - 1, next };
      const { outcome } = await ctx.run('attemptMessage', attempt, INFRASTRUCTURE_RETRY);
      if (outcome === 'retry') continue;
      if (outcome === 'next') break;
      return outcome;
    }
  }
  return 'failed';
}

export const messageSendProcess = defineProcess('message-send', {
  workflowType: 'messageSendWorkflow',
  logic: messageSend,
  activities: {
    attemptMessage: {
      summary: (i) => `attempt ${i.attempt} of message ${i.messageId} through ${i.provider}`,
      outcome: (o, i) =>
        o.outcome === 'next'
          ? `${i.provider} failed (${o.error ?? 'refused'}): failing over to ${i.next}`
          : o.outcome === 'retry'
            ? `${i.provider} failed (${o.error ?? 'unreachable'}): retrying`
            : `${o.outcome}${o.error ? ` (${o.error})` : ''}`,
    },
  },
  sweep: restartFailedOrMissing('message-send', 'queuedMessages', (m) => ({
    entityId: m.id,
    tenantId: m.tenantId,
    input: { messageId: m.id, providers: m.providers, scheduleMs: m.scheduleMs },
  })),
  scope: (i) => ({ of: 'tenant', environmentOf: { table: 'messages', id: i.messageId } }),
  describe: (i) => ({
    summary: `Sends message ${i.messageId} through ${i.providers.join(', then ')}`,
    details:
      `Sends message \`${i.messageId}\` through each provider in turn (${i.providers.join(', ')}), up to ${i.scheduleMs.length} attempts each ` +
      `(delays ${i.scheduleMs.map(duration).join(', ')}); a refusal fails over to the next provider at once.`,
  }),
});
