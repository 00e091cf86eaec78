// The two processes of elevate. The database decides: each activity locks and re-reads its row and acts only if it
// is still due, so a late signal, a retry or a second process changes nothing.
// - elevate-request: waits for the request to be settled (a signal from a decision or a cancel); reminds approvers
//   halfway through its time to live, escalates at three quarters when the policy has escalation channels, and
//   expires the request at its end.
// - elevate-grant: waits for activation until the activation window ends (then expires the approved grant), then for
//   the grant's end; `until` signals (activation, extension) move the end, `revoked` ends the process.
import type { ProcessContext } from './port.ts';
import { INFRASTRUCTURE_RETRY } from './port.ts';
import { RECHECK_FLOOR_MS } from './invitation-expiry.ts';

export interface ElevateRequestInput {
  requestId: string;
  /** When the request was made and when it expires, in ms since the epoch. */
  createdAt: number;
  expiresAt: number;
  escalate: boolean;
}

/** A message on topic `elevate-request`: the request was decided or cancelled. */
export interface ElevateRequestMessage {
  settled: true;
}

export interface ElevateRequestTopics {
  'elevate-request': ElevateRequestMessage;
}

export async function elevateRequest(ctx: ProcessContext<ElevateRequestTopics>, input: ElevateRequestInput): Promise<'expired' | 'settled'> {
  const ttl = input.expiresAt - input.createdAt;
  const nudges = [
    { at: input.createdAt + ttl / 2, kind: 'reminded' as const },
    ...(input.escalate ? [{ at: input.createdAt + (ttl * 3) / 4, kind: 'escalated' as const }] : []),
  ];
  for (const nudge of nudges) {
    const wait = nudge.at - (await ctx.now());
    if (wait > 0 && (await ctx.receive('elevate-request', wait))) return 'settled';
    const result = await ctx.run('nudgeElevateRequest', { requestId: input.requestId, kind: nudge.kind }, INFRASTRUCTURE_RETRY);
    if (result.outcome === 'settled') return 'settled';
  }
  let expiresAt = input.expiresAt;
  let notBefore = 0;
  for (;;) {
    const now = await ctx.now();
    const remaining = Math.max(expiresAt, notBefore) - now;
    if (remaining > 0 && (await ctx.receive('elevate-request', remaining))) return 'settled';
    const result = await ctx.run('expireElevateRequest', { requestId: input.requestId }, INFRASTRUCTURE_RETRY);
    if (result.outcome !== 'pending') return result.outcome;
    expiresAt = result.expiresAt;
    notBefore = now + Math.max(remaining, 0) + RECHECK_FLOOR_MS;
  }
}

export interface ElevateGrantInput {
  grantId: string;
  /** The end of the current phase (ms): the activation deadline of an approved grant, the expiry of an active one. */
  until: number;
}

/** A message on topic `elevate-grant`: a new end (activation, extension), or the revocation. */
export interface ElevateGrantMessage {
  until?: number;
  revoked?: boolean;
}

export interface ElevateGrantTopics {
  'elevate-grant': ElevateGrantMessage;
}

export async function elevateGrant(ctx: ProcessContext<ElevateGrantTopics>, input: ElevateGrantInput): Promise<'expired' | 'revoked' | 'settled'> {
  let until = input.until;
  let notBefore = 0;
  for (;;) {
    const now = await ctx.now();
    const remaining = Math.max(until, notBefore) - now;
    const message = remaining > 0 ? await ctx.receive('elevate-grant', remaining) : undefined;
    if (message) {
      if (message.revoked) return 'revoked';
      if (typeof message.until === 'number') until = message.until;
      notBefore = 0;
      continue;
    }
    const result = await ctx.run('expireElevateGrant', { grantId: input.grantId }, INFRASTRUCTURE_RETRY);
    if (result.outcome !== 'waiting') return result.outcome;
    until = result.until;
    notBefore = now + Math.max(remaining, 0) + RECHECK_FLOOR_MS;
  }
}
