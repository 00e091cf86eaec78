// The page of a one-time password link, `{issuer}/password/:token`: public (the token is the credential), a form
// that sets the user's password once. A used, expired or unknown link, or one of a deactivated user, shows a page
// saying so and changes nothing.
import type { FastifyReply } from 'fastify';
import { passwordProblem } from '../../../../lib/passwords.ts';
import { messagePage, sendPage } from '../../../oidc/pages/page.ts';
import { passwordLinkPage, passwordSetPage } from '../../../oidc/pages/password-link.ts';
import type { LinkState, PasswordService } from './service.ts';
import type { App } from '../../../types.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface LinkRequest {
  Params: { envId: string; token: string };
  Body: Record<string, unknown> | undefined;
}

const closed = (reply: FastifyReply, state: Exclude<LinkState, { kind: 'open' }>) =>
  state.kind === 'gone'
    ? sendPage(reply, 410, messagePage('This link can no longer be used', 'It has expired or was already used. Ask your administrator for a new one.'))
    : sendPage(reply, 404, messagePage('This link is not valid', 'Check that you opened the whole link, or ask your administrator for a new one.'));

export function passwordLinkPages(app: App, passwords: PasswordService) {
  // `:envId`, as the provider's own routes under the issuer name it (a public route addresses no tenant).
  const config = { public: true };
  const path = '/v1/oidc/:envId/password/:token';
  const stateOf = (environmentId: string, token: string): Promise<LinkState> =>
    UUID.test(environmentId) ? passwords.linkState(environmentId, token) : Promise.resolve({ kind: 'unknown' });

  app.get<LinkRequest>(path, { config, schema: { hide: true } }, async (r, reply) => {
    const state = await stateOf(r.params.envId, r.params.token);
    return state.kind === 'open' ? sendPage(reply, 200, passwordLinkPage(state.userName)) : closed(reply, state);
  });

  app.post<LinkRequest>(path, { config, schema: { hide: true } }, async (r, reply) => {
    const { envId: environmentId, token } = r.params;
    const state = await stateOf(environmentId, token);
    if (state.kind !== 'open') return closed(reply, state);
    const password = typeof r.body?.password === 'string' ? r.body.password : '';
    const problem = passwordProblem(password);
    if (problem) return sendPage(reply, 400, passwordLinkPage(state.userName, `The password ${problem}.`));
    if (r.body?.confirmation !== password) return sendPage(reply, 400, passwordLinkPage(state.userName, 'The two passwords differ.'));
    const origin = { ip: r.ip, userAgent: r.headers['user-agent'] ?? null, requestId: r.id };
    const used = await passwords.useLink(environmentId, token, password, origin);
    return used.kind === 'open' ? sendPage(reply, 200, passwordSetPage) : closed(reply, used);
  });
}
