import { z } from 'zod';
import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import { CreatePasswordLinkBody, PasswordLinkResponse, PasswordUserParams, SetPasswordBody } from './schemas.ts';
import type { PasswordService } from './service.ts';
import { PASSWORD_WARNING_HEADER } from '../../../passwords/policy.ts';
import type { App } from '../../../types.ts';

const tags = ['Directory'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/directory/users/:userId';
const write = requires('directory:write');
const PROTECTED =
  ' 403 `directory.user_protected` when the user is an operator of the service (it holds management scopes) and the caller does not hold every scope it holds.';

export function passwordRoutes(app: App, passwords: PasswordService) {
  app.put(`${base}/password`, {
    schema: {
      tags,
      operationId: 'setDirectoryUserPassword',
      summary: 'Set a user’s password',
      description:
        'Sets (or replaces) the password the user signs in with on the environment’s sign-in pages. The environment’s password policy applies (…/settings/password-policy; by default 8 to 256 characters, not only whitespace): 400 naming `body.password` once per failing rule; 409 `password.disabled` when the policy turns password sign-in off. With the breached password policy (…/settings/breached-password-policy, `checkOnChange`) a common or too-guessable password is refused at `block` (the rule `is too common or too easy to guess …`) and set at `warn` with the header `Password-Warning: breached`. The password is stored as an argon2id hash and never returned or logged; emits `user.password_set`.' +
        PROTECTED,
      security: write,
      params: PasswordUserParams,
      body: SetPasswordBody,
      response: { 204: z.null().describe('The password is set.'), ...errorResponses(400, 403, 404, 409) },
    },
    handler: async (r, reply) => {
      const { warning } = await passwords.setPassword(callerOf(r, 'environment'), r.params.userId, r.body.password);
      if (warning) reply.header(PASSWORD_WARNING_HEADER, warning);
      return reply.status(204).send(null);
    },
  });
  app.post(`${base}/password-links`, {
    schema: {
      tags,
      operationId: 'createDirectoryUserPasswordLink',
      summary: 'Issue a one-time password link',
      description:
        'Issues a link by which the user sets a password once, on a page of the environment’s OpenID provider (`{issuer}/password/{token}`). The link is shown only in this answer (only its SHA-256 is kept); it expires after `expiresInSeconds` (default 24 hours, at most 7 days), and a deactivated user cannot use it. 409 `password.disabled` when the environment’s password policy turns password sign-in off. Emits `user.password_link_created`.' +
        PROTECTED,
      security: write,
      params: PasswordUserParams,
      body: CreatePasswordLinkBody,
      response: { 201: PasswordLinkResponse, ...errorResponses(400, 403, 404, 409) },
    },
    handler: async (r, reply) => reply.status(201).send(await passwords.createLink(callerOf(r, 'environment'), r.params.userId, r.body?.expiresInSeconds)),
  });
}
