// "Forgot your password?" of an interaction at login: GET …/reset shows the form, POST …/reset sends the link (if
// an account matches) and shows the same "check your email" page either way. With password sign-in off (password
// policy) both answer a 409 page saying so and send nothing.
import { resetPage, resetSentPage } from '../../../oidc/pages/reset.ts';
import { passwordOffPage } from '../../../oidc/pages/password-link.ts';
import { attemptOf, BASE, field, originOf, PAGE_ROUTE, type Interactions, type Route } from './interaction.ts';
import type { ProtectionPipeline } from '../../../protections/pipeline.ts';
import type { SignInService } from './service.ts';
import type { PasswordResetService } from './password-reset.ts';
import type { App } from '../../../types.ts';

export function resetRoutes(
  app: App,
  deps: { interactions: Interactions; signIn: SignInService; reset: PasswordResetService; protections: ProtectionPipeline },
) {
  const { interactions: ix, signIn, reset, protections } = deps;

  app.get<Route>(`${BASE}/reset`, PAGE_ROUTE, async (r, reply) => {
    const found = await ix.shown(r, reply);
    if (!found) return reply;
    if (!signIn.passwordEnabled(found.provider)) return ix.send(reply, found, 409, passwordOffPage);
    return ix.send(reply, found, 200, (t) =>
      resetPage(
        { base: ix.urlOf(r), abort: ix.urlOf(r, '/abort'), csrf: signIn.csrfOf(r.params.envId, r.params.uid), stamp: signIn.formStampOf(r.params.envId) },
        t,
      ),
    );
  });

  app.post<Route>(`${BASE}/reset`, PAGE_ROUTE, async (r, reply) => {
    const found = await ix.posted(r, reply, 'login');
    if (!found) return reply;
    if (!signIn.passwordEnabled(found.provider)) return ix.send(reply, found, 409, passwordOffPage);
    const { t } = found.context;
    const identifier = field(r, 'identifier').trim();
    const view = (error: string) => ({
      base: ix.urlOf(r),
      abort: ix.urlOf(r, '/abort'),
      csrf: signIn.csrfOf(r.params.envId, r.params.uid),
      stamp: signIn.formStampOf(r.params.envId),
      identifier,
      error,
    });
    if (identifier === '' || identifier.length > 256) return ix.send(reply, found, 400, () => resetPage(view(t.identifierRequired), t));
    const verdict = await protections.before(attemptOf(r, found, 'password_reset', identifier));
    if (verdict) {
      if (verdict.kind === 'deny' && verdict.retryAfterSeconds) reply.header('retry-after', String(verdict.retryAfterSeconds));
      const challenge = verdict.kind === 'challenge' ? verdict.widget : undefined;
      return ix.send(reply, found, verdict.kind === 'deny' ? verdict.status : 401, () => resetPage({ ...view(verdict.text(t)), challenge }, t));
    }
    await reset.request(found.provider, r.params.envId, identifier, t, originOf(r));
    return ix.send(reply, found, 200, () => resetSentPage({ base: ix.urlOf(r) }, t));
  });
}
