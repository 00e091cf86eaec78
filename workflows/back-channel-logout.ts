// Logs one client out of one revoked directory session over the back channel (OpenID Connect Back-Channel Logout
// 1.0): one attempt per delay of the schedule, each with a freshly signed logout token. An RP that is unreachable,
// times out or answers 408, 429 or 5xx is tried again at the next delay; a refusal (another 4xx) or the last attempt
// failing gives up, recorded as session.back_channel_logout_failed. Started through the outbox in the transaction
// that revokes the session, so a crash after the commit still logs the client out.
import type { BackChannelLogoutInput } from '../lib/processes/contracts.ts';
import { defineProcess, duration } from './definition.ts';
import type { ProcessContext } from './port.ts';
import { INFRASTRUCTURE_RETRY } from './port.ts';

export type { BackChannelLogoutInput } from '../lib/processes/contracts.ts';

export async function backChannelLogout(ctx: ProcessContext, input: BackChannelLogoutInput): Promise<'sent' | 'failed' | 'settled'> {
  const { scheduleMs, ...target } = input;
  for (const [a, delay] of scheduleMs.entries()) {
    if (delay > 0) await ctx.sleep(delay);
    const { outcome } = await ctx.run('attemptBackChannelLogout', { ...target, attempt: a + 1, attempts: scheduleMs.length }, INFRASTRUCTURE_RETRY);
    if (outcome !== 'retry') return outcome;
  }
  return 'failed';
}

export const backChannelLogoutProcess = defineProcess('back-channel-logout', {
  workflowType: 'backChannelLogoutWorkflow',
  logic: backChannelLogout,
  activities: {
    attemptBackChannelLogout: {
      summary: (i) => `attempt ${i.attempt}/${i.attempts}: log client ${i.clientId} out of session ${i.sessionId}`,
      outcome: (o, i) =>
        `attempt ${i.attempt}/${i.attempts} ${o.outcome}` +
        (o.statusCode ? ` (got ${o.statusCode})` : o.error ? ` (${o.error})` : '') +
        (o.outcome === 'retry' ? ': retrying' : ''),
    },
  },
  sweep: {
    none: 'nothing to sweep from: the revoking transaction enqueues the start, and an attempt never fails the process (its outcomes are returned)',
  },
  scope: (i) => ({ of: 'tenant', environmentId: i.environmentId }),
  describe: (i) => ({
    summary: `Logs client ${i.clientId} out of session ${i.sessionId} over the back channel`,
    details:
      `Posts a signed logout token (sub, ${i.sid ? 'sid, ' : ''}iss \`${i.issuer}\`) to the back-channel logout URI of client \`${i.clientId}\` ` +
      `for revoked session \`${i.sessionId}\`, up to ${i.scheduleMs.length} attempts (delays ${i.scheduleMs.map(duration).join(', ')}); ` +
      'a refusal or the last failure records `session.back_channel_logout_failed`.',
  }),
});
