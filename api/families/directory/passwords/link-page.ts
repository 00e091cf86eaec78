// The page of a one-time password link, `{issuer}/password/:token`: public (the token is the credential), a form
// that sets the user's password once. A used, expired or unknown link, or one of a deactivated user, shows a page
// saying so and changes nothing. Pages in the locale of Accept-Language (else the environment's default), branded.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendPage, type PageContext } from '../../../oidc/pages/page.ts';
import { pageContextOf } from '../../../oidc/pages/context.ts';
import { linkGonePage, linkUnknownPage, passwordLinkPage, passwordOffPage, passwordSetPage } from '../../../oidc/pages/password-link.ts';
import { refusalText, warningNotice } from '../../../oidc/pages/password-refusal.ts';
import type { PageError } from '../../../oidc/pages/form.ts';
import { snapshotOf } from '../../../oidc/providers.ts';
import type { LinkState, PasswordService } from './service.ts';
import type { App } from '../../../types.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface LinkRequest {
  Params: { envId: string; token: string };
  Body: Record<string, unknown> | undefined;
}

const closed = (reply: FastifyReply, state: Exclude<LinkState, { kind: 'open' }>, c: PageContext) => {
  if (state.kind === 'disabled') return sendPage(reply, 409, passwordOffPage(c.t), c);
  return state.kind === 'gone' ? sendPage(reply, 410, linkGonePage(c.t), c) : sendPage(reply, 404, linkUnknownPage(c.t), c);
};

export function passwordLinkPages(app: App, passwords: PasswordService) {
  // `:envId`, as the provider's own routes under the issuer name it (a public route addresses no tenant).
  const config = { public: true };
  const path = '/v1/oidc/:envId/password/:token';
  const stateOf = (environmentId: string, token: string): Promise<LinkState> =>
    UUID.test(environmentId) ? passwords.linkState(environmentId, token) : Promise.resolve({ kind: 'unknown' });
  const contextOf = async (r: FastifyRequest<LinkRequest>) => {
    const provider = UUID.test(r.params.envId) ? await app.oidc.get(r.params.envId).catch(() => undefined) : undefined;
    return pageContextOf(provider ? snapshotOf(provider).signIn : null, undefined, r.headers['accept-language']);
  };

  app.get<LinkRequest>(path, { config, schema: { hide: true } }, async (r, reply) => {
    const [state, c] = await Promise.all([stateOf(r.params.envId, r.params.token), contextOf(r)]);
    return state.kind === 'open' ? sendPage(reply, 200, passwordLinkPage(state.userName, c.t), c) : closed(reply, state, c);
  });

  app.post<LinkRequest>(path, { config, schema: { hide: true } }, async (r, reply) => {
    const { envId: environmentId, token } = r.params;
    const [state, c] = await Promise.all([stateOf(environmentId, token), contextOf(r)]);
    if (state.kind !== 'open') return closed(reply, state, c);
    const password = typeof r.body?.password === 'string' ? r.body.password : '';
    const refused = (error: PageError) => sendPage(reply, 400, passwordLinkPage(state.userName, c.t, error), c);
    if (r.body?.confirmation !== password) return refused(c.t.passwordsDiffer);
    const origin = { ip: r.ip, userAgent: r.headers['user-agent'] ?? null, requestId: r.id };
    const used = await passwords.useLink(environmentId, token, password, origin);
    if (used.kind === 'refused') return refused(refusalText(used.refusal, c.t));
    return used.kind === 'open'
      ? sendPage(reply, 200, passwordSetPage(c.t, warningNotice('warning' in used ? used.warning : undefined, c.t)), c)
      : closed(reply, used, c);
  });
}
