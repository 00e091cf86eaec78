// The account endpoints of an environment's provider, under its issuer: `POST {issuer}/account/password` changes the
// signed-in user's password. Public to the management API's bearer check (api/plugins/auth.ts): the access token
// this environment issued to the user is checked here (../../../account/access-token.ts), before the body is validated.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../../../errors.ts';
import { UnknownEnvironmentError } from '../../../oidc/providers.ts';
import type { OidcProviders } from '../../../oidc/types.ts';
import { accountTokenOf, bearerOf, type AccountToken } from '../../../account/access-token.ts';
import type { PasswordChangeService } from '../../../account/password-change.ts';
import { PASSWORD_WARNING_HEADER } from '../../../passwords/policy.ts';
import { AccountParams, ChangePasswordBody } from './schemas.ts';
import { allowOrigin, checkOrigin, preflight } from './cors.ts';
import type { App } from '../../../types.ts';

const PATH = '/v1/oidc/:envId/account/password';

export function accountRoutes(app: App, deps: { oidc: OidcProviders; passwords: PasswordChangeService }) {
  const tokens = new WeakMap<FastifyRequest, AccountToken>();

  app.options(PATH, { config: { public: true }, schema: { hide: true } }, (request, reply) => preflight(request, reply, 'POST'));

  app.post(PATH, {
    config: { public: true, noStore: true },
    schema: { hide: true, params: AccountParams, body: ChangePasswordBody, response: { 204: z.null() } },
    // The token first: a request without a valid one learns nothing of the body's rules.
    preValidation: async (request, reply) => {
      allowOrigin(request, reply);
      const { envId } = request.params as { envId: string };
      const provider = await deps.oidc.get(envId).catch((error: unknown) => {
        if (error instanceof UnknownEnvironmentError) throw new ApiError(404, 'oidc.unknown_issuer', 'No OpenID provider at this issuer.');
        throw error;
      });
      const token = await accountTokenOf(provider, envId, bearerOf(request.headers.authorization));
      checkOrigin(request, reply, token);
      tokens.set(request, token);
    },
    handler: async (request, reply) => {
      const origin = { ip: request.ip, userAgent: request.headers['user-agent'] ?? null, requestId: request.id };
      const { warning } = await deps.passwords.change(tokens.get(request)!, request.body, origin);
      if (warning) reply.header(PASSWORD_WARNING_HEADER, warning);
      return reply.status(204).send(null);
    },
  });
}
