// An emailed code as the second factor, at {issuer}/interaction/:uid/mfa/email…, only where `second.emailOffered`
// says so (the MFA settings' `emailCodeSecondFactor`, a verified email, a first factor that was no emailed code);
// elsewhere, and without a waiting first factor, the 400 "start again" page. POST …/mfa/email/send sends a code (429
// within 30 s of the last one), GET …/mfa/email shows the code page again, POST …/mfa/email checks a code: right, the
// login finishes with second factor `email_code`; wrong, expired or used, the page says which, and it counts in the
// same MAX_MFA_FAILURES budget as TOTP and recovery codes. Every POST is CSRF-checked.
import type { FastifyReply } from 'fastify';
import type { EmailCodeFailureReason } from '../../../../db/email-codes/events.ts';
import type { EmailSecondFactor } from '../../../email-codes/second-factor.ts';
import { signInOf } from './email-code-routes.ts';
import type { Messages } from '../../../oidc/pages/i18n/index.ts';
import { mfaEmailPage } from '../../../oidc/pages/mfa-email.ts';
import { BASE, field, PAGE_ROUTE, type Found, type Interactions, type Req, type Route } from './interaction.ts';
import type { Pending, SecondFactor } from './second-factor.ts';
import type { SignInService } from './service.ts';
import type { App } from '../../../types.ts';

const ERRORS: Record<EmailCodeFailureReason, (t: Messages) => string> = {
  wrong_code: (t) => t.mfaEmailWrong,
  code_expired: (t) => t.mfaEmailExpired,
  code_used: (t) => t.mfaEmailUsed,
  code_attempts_exhausted: (t) => t.mfaEmailExhausted,
};

export function mfaEmailRoutes(app: App, deps: { interactions: Interactions; signIn: SignInService; second: SecondFactor; emailCodes: EmailSecondFactor }) {
  const { interactions: ix, signIn, second, emailCodes } = deps;

  /** The waiting first factor when the email code is offered to it; else null once a page is sent. */
  async function offered(r: Req, reply: FastifyReply, post: boolean) {
    const w = await second.waiting(r, reply, post);
    if (!w) return null;
    if (await second.emailOffered(r.params.envId, w.pending)) return w;
    await ix.sendExpired(r, reply, w.found);
    return null;
  }

  async function show(r: Req, reply: FastifyReply, w: { found: Found; pending: Pending }, status = 200, error?: string) {
    const enrolled = await second.isEnrolled(r.params.envId, w.pending.userId);
    const view = { base: ix.urlOf(r), abort: ix.urlOf(r, '/abort'), csrf: signIn.csrfOf(r.params.envId, r.params.uid), enrolled, error };
    return ix.send(reply, w.found, status, (t) => mfaEmailPage({ ...view, stepUp: w.pending.stepUp && t.stepUpEmailText }, t));
  }

  app.post<Route>(`${BASE}/mfa/email/send`, PAGE_ROUTE, async (r, reply) => {
    const w = await offered(r, reply, true);
    if (!w) return reply;
    const { t } = w.found.context;
    const issued = await emailCodes.issue(signInOf(r, w.found), w.pending.userId, t);
    if (issued.kind === 'no_email') return ix.sendExpired(r, reply, w.found);
    return issued.kind === 'sent' ? show(r, reply, w) : show(r, reply, w, 429, t.emailCodeTooSoon);
  });

  app.get<Route>(`${BASE}/mfa/email`, PAGE_ROUTE, async (r, reply) => {
    const w = await offered(r, reply, false);
    return w ? show(r, reply, w) : reply;
  });

  app.post<Route>(`${BASE}/mfa/email`, PAGE_ROUTE, async (r, reply) => {
    const w = await offered(r, reply, true);
    if (!w) return reply;
    const checked = await emailCodes.verify(signInOf(r, w.found), w.pending.userId, field(r, 'code').slice(0, 64));
    if (checked.ok) return second.finish(r, reply, w.found, w.pending, 'email_code');
    if (!(await second.failed(r))) return second.tooMany(reply, w.found);
    return show(r, reply, w, 401, ERRORS[checked.reason](w.found.context.t));
  });
}
