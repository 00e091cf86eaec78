// "Forgot your password?" of an interaction at login: GET …/reset shows the form, POST …/reset sends the link (if
// an account matches) and shows the same "check your email" page either way. With password sign-in off (password
// policy) both answer a 409 page saying so and send nothing.
import { resetPage, resetSentPage } from '../../../oidc/pages/reset.ts';
import { passwordOffPage } from '../../../oidc/pages/password-link.ts';
import { BASE, field, originOf, PAGE_ROUTE, type Interactions, type Route } from './interaction.ts';
import type { SignInService } from './service.ts';
import type { PasswordResetService } from './password-reset.ts';
import type { App } from '../../../types.ts';

export function resetRoutes(app: App, deps: { interactions: Interactions; signIn: SignInService; reset: PasswordResetService }) {
  const { interactions: ix, signIn, reset } = deps;

  app.get<Route>(`${BASE}/reset`, PAGE_ROUTE, async (r, reply) => {
    const found = await ix.shown(r, reply);
    if (!found) return reply;
    if (!signIn.passwordEnabled(found.provider)) return ix.send(reply, found, 409, passwordOffPage);
    return ix.send(reply, found, 200, (t) =>
      resetPage({ base: ix.urlOf(r), abort: ix.urlOf(r, '/abort'), csrf: signIn.csrfOf(r.params.envId, r.params.uid) }, t),
    );
  });

  app.post<Route>(`${BASE}/reset`, PAGE_ROUTE, async (r, reply) => {
    const found = await ix.posted(r, reply, 'login');
    if (!found) return reply;
    if (!signIn.passwordEnabled(found.provider)) return ix.send(reply, found, 409, passwordOffPage);
    const { t } = found.context;
    const identifier = field(r, 'identifier').trim();
    if (identifier === '' || identifier.length > 256) {
      const view = {
        base: ix.urlOf(r),
        abort: ix.urlOf(r, '/abort'),
        csrf: signIn.csrfOf(r.params.envId, r.params.uid),
        identifier,
        error: t.identifierRequired,
      };
      return ix.send(reply, found, 400, () => resetPage(view, t));
    }
    await reset.request(found.provider, r.params.envId, identifier, t, originOf(r));
    return ix.send(reply, found, 200, () => resetSentPage({ base: ix.urlOf(r) }, t));
  });
}
