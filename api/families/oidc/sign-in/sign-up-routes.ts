// Sign-up pages of an interaction (only where the environment allows sign-up; elsewhere the 400 "start again"
// page): GET …/sign-up shows the form, POST …/sign-up creates the user and shows the code page, POST …/verify checks
// the code and, when right, signs the new user in (303 to where the provider resumes).
import type { FastifyReply } from 'fastify';
import { signUpPage, verifyPage } from '../../../oidc/pages/sign-up.ts';
import { refusalText, warningNotice } from '../../../oidc/pages/password-refusal.ts';
import type { PageError } from '../../../oidc/pages/form.ts';
import { snapshotOf } from '../../../oidc/providers.ts';
import type { PasswordPolicy } from '../../../passwords/policy.ts';
import { attemptOf, BASE, field, originOf, PAGE_ROUTE, WRITING_PAGE_ROUTE, type Found, type Interactions, type Req, type Route } from './interaction.ts';
import type { ProtectionPipeline } from '../../../protections/pipeline.ts';
import { signUpForms } from '../../../forms/sign-up.ts';
import { clientIdOf, type SignInService } from './service.ts';
import type { SignUpService } from './sign-up.ts';
import type { SecondFactor } from './second-factor.ts';
import type { App } from '../../../types.ts';
import type { BotChallengeWidget } from '../../../oidc/pages/challenge.ts';

const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;

export function signUpRoutes(
  app: App,
  deps: {
    interactions: Interactions;
    signIn: SignInService;
    signUp: SignUpService;
    second: SecondFactor;
    passwordPolicy: PasswordPolicy;
    protections: ProtectionPipeline;
  },
) {
  const { interactions: ix, signIn, signUp, second, passwordPolicy, protections } = deps;
  const common = (r: Req) => ({
    base: ix.urlOf(r),
    abort: ix.urlOf(r, '/abort'),
    csrf: signIn.csrfOf(r.params.envId, r.params.uid),
    stamp: signIn.formStampOf(r.params.envId),
  });

  /**
   * The interaction and how its environment lets people sign up (`passwordless`: password sign-in off, email code
   * on), if it is at login and sign-up is allowed; else null once the 400 page is sent.
   */
  const allowed = async (r: Req, reply: FastifyReply, found: Found | null) => {
    const mode = found && signIn.signUpMode(found.provider);
    if (found && mode) return Object.assign(found, { passwordless: mode === 'passwordless' });
    if (found) await ix.sendExpired(r, reply, found);
    return null;
  };

  app.get<Route>(`${BASE}/sign-up`, PAGE_ROUTE, async (r, reply) => {
    const found = await allowed(r, reply, await ix.shown(r, reply));
    return found ? ix.send(reply, found, 200, (t) => signUpPage({ ...common(r), password: !found.passwordless, forms: signUpForms(found).view }, t)) : reply;
  });

  app.post<Route>(`${BASE}/sign-up`, WRITING_PAGE_ROUTE, async (r, reply) => {
    const found = await allowed(r, reply, await ix.posted(r, reply, 'login'));
    if (!found) return reply;
    const { t } = found.context;
    const email = field(r, 'email').trim();
    const displayName = field(r, 'displayName').trim().slice(0, 200);
    const password = field(r, 'password');
    const forms = signUpForms(found, r.body);
    const refuse = (error: PageError, errorField?: 'email' | 'password', status = 400, challenge?: BotChallengeWidget) =>
      ix.send(reply, found, status, () =>
        signUpPage({ ...common(r), email, displayName, error, errorField, password: !found.passwordless, forms: forms.view, challenge }, t),
      );
    if (email.length > 254 || !EMAIL.test(email)) return refuse(t.emailInvalid, 'email');
    const scope = { tenantId: snapshotOf(found.provider).tenantId, environmentId: r.params.envId };
    const address = email.toLowerCase();
    const verdict = await protections.before(attemptOf(r, found, 'sign_up', address));
    if (verdict) {
      if (verdict.kind === 'deny' && verdict.retryAfterSeconds) reply.header('retry-after', String(verdict.retryAfterSeconds));
      return refuse(verdict.text(t), 'email', verdict.kind === 'deny' ? verdict.status : 401, verdict.kind === 'challenge' ? verdict.widget : undefined);
    }
    if (forms.error) return refuse(forms.error);
    const checked = found.passwordless
      ? { refusal: null }
      : await passwordPolicy.check(scope, password, { purpose: 'sign_up', userName: address, email: address, origin: originOf(r) });
    if (checked.refusal) return refuse(refusalText(checked.refusal, t), 'password');
    const input = { email, password: found.passwordless ? null : password, displayName: displayName || null, forms: forms.submitted };
    const id = await signUp.start(found.provider, r.params.envId, input, t, originOf(r));
    const notice = warningNotice(checked.warning, t);
    return ix.send(reply, found, 200, () => verifyPage({ ...common(r), signUp: id, email: email.toLowerCase(), notice }, t));
  });

  app.post<Route>(`${BASE}/verify`, WRITING_PAGE_ROUTE, async (r, reply) => {
    const found = await allowed(r, reply, await ix.posted(r, reply, 'login'));
    if (!found) return reply;
    const { t } = found.context;
    const id = field(r, 'signUp');
    const email = field(r, 'email').slice(0, 254);
    const result = await signUp.verify(found.provider, r.params.envId, id, field(r, 'code'), clientIdOf(found.interaction), originOf(r));
    if (result.kind === 'verified')
      return second.afterFirstFactor(r, reply, found, { userId: result.userId, amr: result.amr, remember: false, recorded: true });
    if (result.kind === 'expired')
      return ix.send(reply, found, 400, () =>
        signUpPage({ ...common(r), email, error: t.codeExpired, errorField: 'email', forms: signUpForms(found).view }, t),
      );
    return ix.send(reply, found, 400, () => verifyPage({ ...common(r), signUp: id, email, error: t.wrongCode }, t));
  });
}
