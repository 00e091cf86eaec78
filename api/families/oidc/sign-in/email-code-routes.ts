// Email code sign-in of an interaction at login (only where the environment turns it on; elsewhere the 400 "start
// again" page): POST …/email-code/send issues a code and link (the same page for every identifier; 429 within 30 s of
// the last one), POST …/email-code checks a typed code, GET …/email-code/:token is the magic link. The link signs in
// only in the browser that started the sign-in (its interaction cookie): anywhere else it says "go back to your
// first tab", so a link forwarded, or opened by someone who typed your email, never signs their browser in.
import type { FastifyReply } from 'fastify';
import type { EmailCodeService, EmailCodeSignIn, VerifyResult } from '../../../email-codes/service.ts';
import { emailCodePage, emailLinkElsewherePage, emailLinkGonePage } from '../../../oidc/pages/email-code.ts';
import { messagePage, sendPage } from '../../../oidc/pages/page.ts';
import { pageContextOf } from '../../../oidc/pages/context.ts';
import { snapshotOf } from '../../../oidc/providers.ts';
import type { OidcProviders } from '../../../oidc/types.ts';
import { attemptOf, BASE, field, originOf, PAGE_ROUTE, type Found, type Interactions, type Req, type Route } from './interaction.ts';
import { clientIdOf, type SignInService } from './service.ts';
import type { App } from '../../../types.ts';
import type { SecondFactor } from './second-factor.ts';
import type { ProtectionPipeline } from '../../../protections/pipeline.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface LinkRoute extends Route {
  Params: Route['Params'] & { token: string };
}

/** The sign-in an emailed code belongs to: this interaction of this environment, for its client. */
export const signInOf = (r: Req, found: Found): EmailCodeSignIn => ({
  provider: found.provider,
  environmentId: r.params.envId,
  uid: r.params.uid,
  clientId: clientIdOf(found.interaction),
  origin: originOf(r),
});

export function emailCodeRoutes(
  app: App,
  deps: {
    oidc: OidcProviders;
    interactions: Interactions;
    signIn: SignInService;
    emailCodes: EmailCodeService;
    second: SecondFactor;
    protections: ProtectionPipeline;
  },
) {
  const { interactions: ix, signIn, emailCodes, second, protections } = deps;

  /** The interaction of a POST at login where the environment offers email codes; else null once a page is sent. */
  const allowed = async (r: Req, reply: FastifyReply) => {
    const found = await ix.posted(r, reply, 'login');
    if (found && signIn.emailCodeEnabled(found.provider)) return found;
    if (found) await ix.sendExpired(r, reply, found);
    return null;
  };

  const showCode = (r: Req, reply: FastifyReply, found: Found, identifier: string, status = 200, error?: string) =>
    ix.send(reply, found, status, (t) =>
      emailCodePage({ base: ix.urlOf(r), abort: ix.urlOf(r, '/abort'), csrf: signIn.csrfOf(r.params.envId, r.params.uid), identifier, error }, t),
    );

  // A right code is a first factor: the protections' step-up (device risk) and the second factor follow where the
  // policies ask for them, and `user.signed_in` is recorded once the login finishes.
  const finish = async (r: Req, reply: FastifyReply, found: Found, result: Extract<VerifyResult, { kind: 'signed_in' }>, login: string | null) => {
    const after = await protections.succeeded(attemptOf(r, found, 'sign_in', login, result.userId));
    if (after && after.kind !== 'step_up')
      return ix.send(reply, found, after.kind === 'deny' ? after.status : 401, (t) => messagePage(t.signInTitle, after.text(t)));
    return second.afterFirstFactor(r, reply, found, { userId: result.userId, amr: result.amr, remember: false }, after && { ...after, login });
  };

  app.post<Route>(`${BASE}/email-code/send`, PAGE_ROUTE, async (r, reply) => {
    const found = await allowed(r, reply);
    if (!found) return reply;
    const { t } = found.context;
    const identifier = field(r, 'identifier').trim();
    if (identifier === '' || identifier.length > 256) return ix.sendExpired(r, reply, found);
    const issued = await emailCodes.issue(signInOf(r, found), identifier, t);
    return issued.kind === 'sent' ? showCode(r, reply, found, identifier) : showCode(r, reply, found, identifier, 429, t.emailCodeTooSoon);
  });

  app.post<Route>(`${BASE}/email-code`, PAGE_ROUTE, async (r, reply) => {
    const found = await allowed(r, reply);
    if (!found) return reply;
    const { t } = found.context;
    const identifier = field(r, 'identifier').trim().slice(0, 256);
    const result = await emailCodes.verifyCode(signInOf(r, found), field(r, 'code').slice(0, 64));
    if (result.kind === 'signed_in') return finish(r, reply, found, result, identifier || null);
    return result.kind === 'wrong' ? showCode(r, reply, found, identifier, 401, t.wrongCode) : showCode(r, reply, found, identifier, 400, t.emailCodeGone);
  });

  app.get<LinkRoute>(`${BASE}/email-code/:token`, PAGE_ROUTE, async (r, reply) => {
    const found = await ix.interactionOf(r, reply);
    if (!found) {
      // No sign-in of this uid in this browser: say where to go (the link's token is not even looked at).
      const provider = UUID.test(r.params.envId) ? await deps.oidc.get(r.params.envId).catch(() => undefined) : undefined;
      const context = pageContextOf(provider ? snapshotOf(provider).signIn : null, undefined, r.headers['accept-language']);
      return sendPage(reply, 200, emailLinkElsewherePage(context.t), context);
    }
    const gone = () => ix.send(reply, found, 400, (t) => emailLinkGonePage(t, ix.urlOf(r)));
    if (found.interaction.prompt.name !== 'login' || !signIn.emailCodeEnabled(found.provider)) return gone();
    const result = await emailCodes.verifyLink(signInOf(r, found), r.params.token.slice(0, 128));
    return result.kind === 'signed_in' ? finish(r, reply, found, result, null) : gone();
  });
}
