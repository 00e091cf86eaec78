// The second-factor pages at {issuer}/interaction/:uid/mfa…, reached only through `afterFirstFactor`
// (./second-factor.ts), which keeps the first factor server-side for the interaction. GET …/mfa shows the TOTP
// challenge, or the enrolment when the user has no authenticator; POST …/mfa/totp, …/mfa/recovery and …/mfa/enrol
// check a code (the api/mfa services audit each failure; the page says what went wrong, in the interaction's
// locale, and nothing changes; after MAX_MFA_FAILURES wrong codes the sign-in starts again); POST …/mfa/done finishes after the recovery codes were shown. Every POST is checked
// against the interaction's CSRF token; without a waiting first factor every page is the 400 "start again" page.
// The challenge and the enrolment offer "Email me a code instead" where second.emailOffered says so (mfa-email-routes.ts),
// and "Text me a code" / "Use a text message instead" where texting is on (mfa-sms-routes.ts); a user with only a
// phone goes to the texted code's page.
import type { FastifyReply } from 'fastify';
import { decrypt, encrypt } from '../../../../lib/crypto.ts';
import { totpQrSvg } from '../../../../lib/mfa/totp.ts';
import { snapshotOf } from '../../../oidc/providers.ts';
import { mfaChallengePage, mfaRecoveryPage } from '../../../oidc/pages/mfa-challenge.ts';
import { mfaEnrolPage, mfaRecoveryCodesPage } from '../../../oidc/pages/mfa-enrol.ts';
import type { MfaFailureReason, MfaService } from '../../../mfa/index.ts';
import type { Messages } from '../../../oidc/pages/i18n/index.ts';
import { BASE, field, PAGE_ROUTE, type Found, type Interactions, type Req, type Route } from './interaction.ts';
import type { Pending, SecondFactor } from './second-factor.ts';
import type { SignInService } from './service.ts';
import type { App } from '../../../types.ts';

const codeError = (t: Messages, reason: MfaFailureReason) => (reason === 'replayed' ? t.mfaReplayedCode : t.mfaWrongCode);
const recoveryError = (t: Messages, reason: MfaFailureReason) => (reason === 'replayed' ? t.mfaUsedRecovery : t.mfaWrongRecovery);

export function mfaRoutes(app: App, deps: { interactions: Interactions; signIn: SignInService; second: SecondFactor; mfa: MfaService; masterKey: Buffer }) {
  const { interactions: ix, signIn, second, mfa, masterKey } = deps;
  const common = (r: Req) => ({ base: ix.urlOf(r), abort: ix.urlOf(r, '/abort'), csrf: signIn.csrfOf(r.params.envId, r.params.uid) });

  const { waiting, tooMany } = second;

  async function showChallenge(r: Req, reply: FastifyReply, found: Found, pending: Pending, status = 200, error?: string) {
    const rememberDevice = second.rememberSeconds(found) !== null;
    const emailOffer = await second.emailOffered(r.params.envId, pending);
    const smsOffer = (await second.phoneOf(r.params.envId, pending.userId)) !== null;
    const view = { ...common(r), rememberDevice, emailOffer, smsOffer, error };
    return ix.send(reply, found, status, (t) => mfaChallengePage({ ...view, intro: pending.stepUp && t.stepUpTotpText }, t));
  }

  async function showEnrolment(r: Req, reply: FastifyReply, found: Found, pending: Pending, status = 200, error?: string) {
    let enrolment = pending.enrolment;
    let shown: { secret: string; otpauthUri: string };
    // The enrolment in progress is shown again (a reload, a wrong code): the key the user may have scanned stays valid.
    if (enrolment) {
      shown = JSON.parse(decrypt(masterKey, enrolment.sealed)) as typeof shown;
    } else {
      const issuer = snapshotOf(found.provider).signIn?.displayName ?? undefined;
      const started = await mfa.startTotpEnrolment(second.envOf(r, found), pending.userId, { issuer });
      shown = { secret: started.secret, otpauthUri: started.otpauthUri };
      enrolment = { factorId: started.factorId, sealed: encrypt(masterKey, JSON.stringify(shown)) };
      await second.save(r, found, { ...pending, enrolment });
    }
    const qrSvg = await totpQrSvg(shown.otpauthUri);
    const emailOffer = await second.emailOffered(r.params.envId, pending);
    const smsOffer = await second.smsEnrolOffered(r.params.envId, pending.userId);
    return ix.send(reply, found, status, (t) => mfaEnrolPage({ ...common(r), qrSvg, secret: shown.secret, emailOffer, smsOffer, error }, t));
  }

  app.get<Route>(`${BASE}/mfa`, PAGE_ROUTE, async (r, reply) => {
    const w = await waiting(r, reply, false);
    if (!w) return reply;
    if (w.pending.passed) return second.finish(r, reply, w.found, w.pending, 'totp');
    // A step-up by email never turns into an enrolment: a new authenticator is no proof of the doubted sign-in.
    if (w.pending.stepUp?.method === 'email_code') return reply.header('cache-control', 'no-store').redirect(ix.urlOf(r, '/mfa/email'), 303);
    if (w.pending.stepUp?.method === 'sms_code') return reply.header('cache-control', 'no-store').redirect(ix.urlOf(r, '/mfa/sms'), 303);
    if (await second.isEnrolled(r.params.envId, w.pending.userId)) return showChallenge(r, reply, w.found, w.pending);
    if (await second.phoneOf(r.params.envId, w.pending.userId)) return reply.header('cache-control', 'no-store').redirect(ix.urlOf(r, '/mfa/sms'), 303);
    return showEnrolment(r, reply, w.found, w.pending);
  });

  app.post<Route>(`${BASE}/mfa/totp`, PAGE_ROUTE, async (r, reply) => {
    const w = await waiting(r, reply, true);
    if (!w) return reply;
    const checked = await mfa.verifyTotp(second.envOf(r, w.found), w.pending.userId, field(r, 'code').replace(/\s/g, ''));
    if (!checked.ok) {
      if (!(await second.failed(r))) return tooMany(reply, w.found);
      return showChallenge(r, reply, w.found, w.pending, 401, codeError(w.found.context.t, checked.reason));
    }
    if (field(r, 'rememberDevice') !== '') await second.rememberDevice(r, reply, w.found, w.pending.userId);
    return second.finish(r, reply, w.found, w.pending, 'totp');
  });

  app.get<Route>(`${BASE}/mfa/recovery`, PAGE_ROUTE, async (r, reply) => {
    const w = await waiting(r, reply, false);
    return w ? ix.send(reply, w.found, 200, (t) => mfaRecoveryPage(common(r), t)) : reply;
  });

  app.post<Route>(`${BASE}/mfa/recovery`, PAGE_ROUTE, async (r, reply) => {
    const w = await waiting(r, reply, true);
    if (!w) return reply;
    const used = await mfa.useRecoveryCode(second.envOf(r, w.found), w.pending.userId, field(r, 'recoveryCode'));
    if (used.ok) return second.finish(r, reply, w.found, w.pending, 'recovery_code');
    if (!(await second.failed(r))) return tooMany(reply, w.found);
    const error = recoveryError(w.found.context.t, used.reason);
    return ix.send(reply, w.found, 401, (t) => mfaRecoveryPage({ ...common(r), error }, t));
  });

  app.post<Route>(`${BASE}/mfa/enrol`, PAGE_ROUTE, async (r, reply) => {
    const w = await waiting(r, reply, true);
    if (!w) return reply;
    const { found, pending } = w;
    if (!pending.enrolment) return ix.sendExpired(r, reply, found);
    const code = field(r, 'code').replace(/\s/g, '');
    const confirmed = await mfa.confirmTotpEnrolment(second.envOf(r, found), pending.userId, pending.enrolment.factorId, code);
    if (!confirmed.ok) {
      // The enrolment was replaced or removed meanwhile: start a new one.
      if (confirmed.reason === 'not_enrolled') return showEnrolment(r, reply, found, { ...pending, enrolment: null });
      if (!(await second.failed(r))) return tooMany(reply, found);
      return showEnrolment(r, reply, found, pending, 401, found.context.t.mfaWrongCode);
    }
    await second.save(r, found, { ...pending, enrolment: null, passed: true });
    return ix.send(reply, found, 200, (t) => mfaRecoveryCodesPage({ ...common(r), codes: confirmed.recoveryCodes }, t));
  });

  app.post<Route>(`${BASE}/mfa/done`, PAGE_ROUTE, async (r, reply) => {
    const w = await waiting(r, reply, true);
    if (!w) return reply;
    if (!w.pending.passed) return ix.sendExpired(r, reply, w.found);
    return second.finish(r, reply, w.found, w.pending, 'totp');
  });
}
