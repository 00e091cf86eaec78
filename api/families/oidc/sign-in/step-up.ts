// The step-up a protection asks for after a good first factor (today the device-risk policy: an unrecognised device,
// an impossible travel). What is asked does not depend on the MFA policy:
// - a user with an authenticator app is asked for its code (or a recovery code) on the second-factor page, and a
//   "remember this device" cookie does not spare it (it is a cookie of the same browser the policy doubts);
// - a user without one but with a phone where the pages text codes is asked for a texted code (its page);
// - a user without either but with a verified email gets a 6-digit code there at once (the emailed second factor's page);
// - a first factor that was itself an emailed code or link, for a user without an authenticator, already proved the
//   mailbox: nothing more is asked;
// - with neither, the sign-in is refused (403 page).
// Asking records `protection.stepped_up` (details: `method` and the policy's own); a refusal and a failed step-up (the
// wrong-code budget spent) record `protection.blocked` and open or add to the policy's `sign_in.<policy>` threat.
import type { FastifyReply } from 'fastify';
import type { DatabasePool } from 'slonik';
import type { EmailSecondFactor } from '../../../email-codes/second-factor.ts';
import { messagePage } from '../../../oidc/pages/page.ts';
import { snapshotOf } from '../../../oidc/providers.ts';
import { recordDecision, type ProtectionDecision } from '../../../protections/decisions.ts';
import type { StepUpVerdict } from '../../../protections/pipeline.ts';
import { originOf, type Found, type Interactions, type Req } from './interaction.ts';
import { clientIdOf } from './service.ts';

/** A step-up asked of a sign-in: the verdict and the identifier typed (for the events). */
export type StepUpRequest = StepUpVerdict & { login: string | null };

/** A step-up in progress, kept with the waiting first factor. */
export interface StepUp {
  policy: StepUpVerdict['policy'];
  reason: string;
  method: 'totp' | 'sms_code' | 'email_code';
  tenantId: string;
  login: string | null;
}

export function createStepUp<First extends { userId: string; amr: string[] }>(deps: {
  pool: DatabasePool;
  interactions: Interactions;
  emailCodes: EmailSecondFactor;
  isEnrolled: (envId: string, userId: string) => Promise<boolean>;
  /** Whether the user has a phone the pages text codes to (texting on, an active SMS provider). */
  hasPhone: (envId: string, userId: string) => Promise<boolean>;
  /** Keeps the first factor waiting at the interaction with the step-up (strict: no remembered device spares it). */
  wait: (r: Req, found: Found, first: First, stepUp: StepUp) => Promise<void>;
}) {
  const { pool, interactions: ix, emailCodes } = deps;
  const decide = (r: Req, d: Omit<ProtectionDecision, 'environmentId' | 'origin'>) =>
    recordDecision(pool, { ...d, environmentId: r.params.envId, origin: originOf(r) });

  return {
    /**
     * Asks `first`'s user for the step-up and answers: 303 to the code page, or the 403 refusal page (true); false,
     * answering nothing, when the first factor already was what would be asked (the sign-in goes on as without one).
     * (A boolean, not the reply: a FastifyReply is thenable, so an async function returning one resolves to undefined.)
     */
    async ask(r: Req, reply: FastifyReply, found: Found, first: First, v: StepUpRequest): Promise<boolean> {
      const envId = r.params.envId;
      const tenantId = snapshotOf(found.provider).tenantId;
      const common = { tenantId, policy: v.policy, flow: 'sign_in' as const, reason: v.reason, userId: first.userId, login: v.login };
      const step = async (method: StepUp['method']) => {
        await deps.wait(r, found, first, { policy: v.policy, reason: v.reason, method, tenantId, login: v.login });
        await decide(r, { ...common, outcome: 'stepped_up', details: { ...v.details, method } });
      };
      if (await deps.isEnrolled(envId, first.userId)) {
        await step('totp');
        reply.header('cache-control', 'no-store').redirect(ix.urlOf(r, '/mfa'), 303);
        return true;
      }
      if (await deps.hasPhone(envId, first.userId)) {
        await step('sms_code');
        reply.header('cache-control', 'no-store').redirect(ix.urlOf(r, '/mfa/sms'), 303);
        return true;
      }
      if (first.amr.includes('email')) return false;
      if (await emailCodes.addressOf(envId, first.userId)) {
        await step('email_code');
        const signIn = { provider: found.provider, environmentId: envId, uid: r.params.uid, clientId: clientIdOf(found.interaction), origin: originOf(r) };
        await emailCodes.issue(signIn, first.userId, found.context.t);
        reply.header('cache-control', 'no-store').redirect(ix.urlOf(r, '/mfa/email'), 303);
        return true;
      }
      const threat = {
        severity: 'medium' as const,
        summary: 'A sign-in the device-risk policy doubted could not be stepped up: the user has no second factor and no verified email.',
      };
      await decide(r, { ...common, outcome: 'blocked', details: { ...v.details, method: null }, threat });
      ix.send(reply, found, 403, (t) => messagePage(t.stepUpRefusedTitle, t.stepUpRefusedText));
      return true;
    },

    /** Records a step-up failed: the wrong-code budget spent, the waiting first factor dropped. */
    failed: (r: Req, userId: string, s: StepUp) =>
      decide(r, {
        tenantId: s.tenantId,
        policy: s.policy,
        flow: 'second_factor',
        outcome: 'blocked',
        reason: 'step_up_failed',
        userId,
        login: s.login,
        details: { stepUpReason: s.reason, method: s.method },
        threat: { severity: 'high', summary: 'A sign-in the device-risk policy doubted failed its step-up: too many wrong codes after a good first factor.' },
      }),
  };
}
