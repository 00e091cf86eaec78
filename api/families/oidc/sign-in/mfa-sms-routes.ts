// A texted code as the second factor, at {issuer}/interaction/:uid/mfa/sms…, only where the MFA settings turn on
// `smsSecondFactor` and an SMS provider is active; elsewhere, and without a waiting first factor, the 400 "start
// again" page. A user with a verified phone: GET …/mfa/sms (the button that texts a code, or the code field once one
// was sent), POST …/mfa/sms/send (texts a code), POST …/mfa/sms (checks it: right, the login finishes with second
// factor `sms_code`). A user who must enrol and has neither an app nor a phone: GET …/mfa/sms/enrol (the number),
// POST …/mfa/sms/enrol (texts a code to it; a number that is not valid, or in a country no active provider may
// text, is a 400 page), POST …/mfa/sms/enrol/confirm (the code: the number becomes the user's phone factor and the
// login finishes). Over 30 s or the SMS rates: a 429 page, nothing sent. Wrong codes count in MAX_MFA_FAILURES.
import type { FastifyReply } from 'fastify';
import type { EmailCodeFailureReason } from '../../../../db/email-codes/events.ts';
import type { SmsIssue, SmsSecondFactor } from '../../../sms-codes/second-factor.ts';
import { countryName, phoneHint, typedNumber } from '../../../sms-codes/phone.ts';
import { signInOf } from './email-code-routes.ts';
import { fillText, type Messages } from '../../../oidc/pages/i18n/index.ts';
import { mfaSmsEnrolPage, mfaSmsPage } from '../../../oidc/pages/mfa-sms.ts';
import { BASE, field, PAGE_ROUTE, type Found, type Interactions, type Req, type Route } from './interaction.ts';
import type { Pending, SecondFactor } from './second-factor.ts';
import type { SignInService } from './service.ts';
import type { App } from '../../../types.ts';

const ERRORS: Record<EmailCodeFailureReason, (t: Messages) => string> = {
  wrong_code: (t) => t.mfaSmsWrong,
  code_expired: (t) => t.mfaEmailExpired,
  code_used: (t) => t.mfaEmailUsed,
  code_attempts_exhausted: (t) => t.mfaEmailExhausted,
};

const refusal = (issued: SmsIssue, t: Messages) => (issued.kind === 'too_soon' ? t.emailCodeTooSoon : t.mfaSmsRateLimited);

type Waiting = { found: Found; pending: Pending };

export function mfaSmsRoutes(app: App, deps: { interactions: Interactions; signIn: SignInService; second: SecondFactor; sms: SmsSecondFactor }) {
  const { interactions: ix, signIn, second, sms } = deps;
  const common = (r: Req) => ({ base: ix.urlOf(r), abort: ix.urlOf(r, '/abort'), csrf: signIn.csrfOf(r.params.envId, r.params.uid) });

  /** The waiting first factor and its user's verified phone number, where texting is on; else null once a page is sent. */
  async function withPhone(r: Req, reply: FastifyReply, post: boolean) {
    const w = await second.waiting(r, reply, post);
    if (!w) return null;
    const phone = await second.phoneOf(r.params.envId, w.pending.userId);
    if (phone) return { ...w, number: phone.phoneNumber };
    await ix.sendExpired(r, reply, w.found);
    return null;
  }

  /** The waiting first factor of a user who may enrol a phone; else null once a page is sent. */
  async function enrolling(r: Req, reply: FastifyReply, post: boolean) {
    const w = await second.waiting(r, reply, post);
    if (!w) return null;
    if (await second.smsEnrolOffered(r.params.envId, w.pending.userId)) return w;
    await ix.sendExpired(r, reply, w.found);
    return null;
  }

  async function show(r: Req, reply: FastifyReply, w: Waiting & { number: string }, status = 200, error?: string) {
    const sent = (await sms.sentTo(signInOf(r, w.found), w.pending.userId, 'second_factor')) !== null;
    const enrolled = await second.isEnrolled(r.params.envId, w.pending.userId);
    const view = { ...common(r), hint: phoneHint(w.number), sent, enrolled, error };
    return ix.send(reply, w.found, status, (t) => mfaSmsPage(view, t));
  }

  const showEnrol = (r: Req, reply: FastifyReply, w: Waiting, status: number, view: { phone?: string | undefined; sent?: boolean; error?: string }) =>
    ix.send(reply, w.found, status, (t) => mfaSmsEnrolPage({ ...common(r), ...view }, t));

  app.get<Route>(`${BASE}/mfa/sms`, PAGE_ROUTE, async (r, reply) => {
    const w = await withPhone(r, reply, false);
    return w ? show(r, reply, w) : reply;
  });

  app.post<Route>(`${BASE}/mfa/sms/send`, PAGE_ROUTE, async (r, reply) => {
    const w = await withPhone(r, reply, true);
    if (!w) return reply;
    const { t } = w.found.context;
    const issued = await sms.issue(signInOf(r, w.found), w.pending.userId, w.number, 'second_factor', t);
    return issued.kind === 'sent' ? show(r, reply, w) : show(r, reply, w, 429, refusal(issued, t));
  });

  app.post<Route>(`${BASE}/mfa/sms`, PAGE_ROUTE, async (r, reply) => {
    const w = await withPhone(r, reply, true);
    if (!w) return reply;
    const checked = await sms.verify(signInOf(r, w.found), w.pending.userId, 'second_factor', field(r, 'code').slice(0, 64));
    if (checked.ok) return second.finish(r, reply, w.found, w.pending, 'sms_code');
    if (!(await second.failed(r))) return second.tooMany(reply, w.found);
    return show(r, reply, w, 401, ERRORS[checked.reason](w.found.context.t));
  });

  app.get<Route>(`${BASE}/mfa/sms/enrol`, PAGE_ROUTE, async (r, reply) => {
    const w = await enrolling(r, reply, false);
    return w ? showEnrol(r, reply, w, 200, {}) : reply;
  });

  app.post<Route>(`${BASE}/mfa/sms/enrol`, PAGE_ROUTE, async (r, reply) => {
    const w = await enrolling(r, reply, true);
    if (!w) return reply;
    const { t, locale } = w.found.context;
    const typed = field(r, 'phone').slice(0, 64);
    const parsed = typedNumber(typed, await sms.availability(r.params.envId));
    if (!parsed.ok) {
      const error = parsed.reason === 'invalid' ? t.mfaSmsPhoneInvalid : fillText(t.mfaSmsCountryRefused, { country: countryName(parsed.country, locale) });
      return showEnrol(r, reply, w, 400, { phone: typed, error });
    }
    const issued = await sms.issue(signInOf(r, w.found), w.pending.userId, parsed.number, 'enrolment', t);
    // Refused: the page still asks for the code sent before, if any (to the number it went to).
    const number = await sms.sentTo(signInOf(r, w.found), w.pending.userId, 'enrolment');
    const view = { phone: number ?? parsed.number, sent: number !== null };
    return issued.kind === 'sent' ? showEnrol(r, reply, w, 200, view) : showEnrol(r, reply, w, 429, { ...view, error: refusal(issued, t) });
  });

  app.post<Route>(`${BASE}/mfa/sms/enrol/confirm`, PAGE_ROUTE, async (r, reply) => {
    const w = await enrolling(r, reply, true);
    if (!w) return reply;
    const checked = await sms.verify(signInOf(r, w.found), w.pending.userId, 'enrolment', field(r, 'code').slice(0, 64));
    if (checked.ok) return second.finish(r, reply, w.found, w.pending, 'sms_code');
    if (!(await second.failed(r))) return second.tooMany(reply, w.found);
    const number = await sms.sentTo(signInOf(r, w.found), w.pending.userId, 'enrolment');
    return showEnrol(r, reply, w, 401, { phone: number ?? undefined, sent: number !== null, error: ERRORS[checked.reason](w.found.context.t) });
  });
}
