// The two processes of elevate. The database decides: each activity locks and re-reads its row and acts only if it
// is still due, so a late signal, a retry or a second process changes nothing.
// - elevate-request: waits for the request to be settled (a signal from a decision or a cancel); reminds approvers
//   halfway through its time to live, escalates at three quarters when the policy has escalation channels, and
//   expires the request at its end.
// - elevate-grant: waits for activation until the activation window ends (then expires the approved grant), then for
//   the grant's end; `until` signals (activation, extension) move the end, `revoked` ends the process.
import type { ElevateGrantInput, ElevateRequestInput, ProcessTopics } from '../lib/processes/contracts.ts';
import { waitForDeadline } from './deadline.ts';
import { defineProcess, dueOutcome, iso, restartFailedOrMissing } from './definition.ts';
import type { ProcessContext } from './port.ts';
import { INFRASTRUCTURE_RETRY } from './port.ts';

export type { ElevateGrantInput, ElevateGrantMessage, ElevateRequestInput, ElevateRequestMessage } from '../lib/processes/contracts.ts';
export type ElevateRequestTopics = ProcessTopics<'elevate-request'>;
export type ElevateGrantTopics = ProcessTopics<'elevate-grant'>;

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
  return waitForDeadline(ctx, {
    until: input.expiresAt,
    topic: 'elevate-request',
    onMessage: () => ({ done: 'settled' as const }),
    due: async () => {
      const result = await ctx.run('expireElevateRequest', { requestId: input.requestId }, INFRASTRUCTURE_RETRY);
      return result.outcome === 'pending' ? { until: result.expiresAt } : { done: result.outcome };
    },
  });
}

export function elevateGrant(ctx: ProcessContext<ElevateGrantTopics>, input: ElevateGrantInput): Promise<'expired' | 'revoked' | 'settled'> {
  return waitForDeadline(ctx, {
    until: input.until,
    topic: 'elevate-grant',
    onMessage: (message) => (message.revoked ? { done: 'revoked' as const } : typeof message.until === 'number' ? { until: message.until } : undefined),
    messageClearsRecheck: true,
    due: async () => {
      const result = await ctx.run('expireElevateGrant', { grantId: input.grantId }, INFRASTRUCTURE_RETRY);
      return result.outcome === 'waiting' ? { until: result.until } : { done: result.outcome };
    },
  });
}

export const elevateRequestProcess = defineProcess('elevate-request', {
  workflowType: 'elevateRequestWorkflow',
  logic: elevateRequest,
  activities: {
    nudgeElevateRequest: {
      summary: (i) => `${i.kind === 'escalated' ? 'escalate' : 'remind approvers of'} access request ${i.requestId} if still pending`,
    },
    expireElevateRequest: {
      summary: (i) => `expire access request ${i.requestId} if it is due`,
      outcome: (o) => dueOutcome('expires', o.outcome === 'pending' ? o.expiresAt : undefined, o.outcome),
    },
  },
  sweep: restartFailedOrMissing('elevate-request', 'pendingElevateRequests', (r) => ({
    entityId: r.id,
    tenantId: r.tenantId,
    input: { requestId: r.id, createdAt: r.createdAt, expiresAt: r.expiresAt, escalate: r.escalate },
  })),
  scope: (i) => ({ of: 'tenant', environmentOf: { table: 'elevate_requests', id: i.requestId } }),
  describe: (i) => ({
    summary: `Waits for the decision on access request ${i.requestId}, reminds approvers, expires it when due`,
    details:
      `Reminds the approvers of access request \`${i.requestId}\` halfway through its time to live${i.escalate ? ', escalates at three quarters' : ''}, ` +
      `and expires it at ${iso(i.expiresAt)} unless it is decided or cancelled first (signal \`elevate-request\`).`,
  }),
});

export const elevateGrantProcess = defineProcess('elevate-grant', {
  workflowType: 'elevateGrantWorkflow',
  logic: elevateGrant,
  activities: {
    expireElevateGrant: {
      summary: (i) => `expire grant ${i.grantId} if its end has come`,
      outcome: (o) => (o.outcome === 'waiting' ? `not due yet (ends at ${iso(o.until)})` : o.outcome),
    },
  },
  sweep: restartFailedOrMissing('elevate-grant', 'openElevateGrants', (g) => ({
    entityId: g.id,
    tenantId: g.tenantId,
    input: { grantId: g.id, until: g.until },
  })),
  scope: (i) => ({ of: 'tenant', environmentOf: { table: 'elevate_grants', id: i.grantId } }),
  describe: (i) => ({
    summary: `Ends elevated-access grant ${i.grantId} when its activation window or duration is over`,
    details:
      `Waits until ${iso(i.until)} for grant \`${i.grantId}\` to be activated (then until its expiry), and expires it at the end; ` +
      'activation and extension move the end, revocation ends the process (signal `elevate-grant`).',
  }),
});
