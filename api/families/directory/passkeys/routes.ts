// A directory user's passkeys: list, rename, remove (registration happens on the sign-in pages).
import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery, SuccessIdResponse } from '../../../common/schemas.ts';
import { PasskeyParams, PasskeyResponse, PasskeysResponse, PasskeyUserParams, RenamePasskeyBody } from './schemas.ts';
import type { PasskeyService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Directory'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/directory/users/:userId/passkeys';
const read = requires('directory:read');
const write = requires('directory:write');
const NOT_FOUND = ' 404 `user.not_found` for an unknown user, `passkey.not_found` for a passkey that is not this user’s.';
const PROTECTED =
  ' 403 `directory.user_protected` when the user is an operator of the service (it holds management scopes) and the caller does not hold every scope it holds.';

export function passkeyRoutes(app: App, passkeys: PasskeyService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listDirectoryUserPasskeys',
      summary: 'List a user’s passkeys',
      description:
        'Lists the passkeys (WebAuthn credentials) the user registered on the sign-in pages, oldest first: name, device type, backup state, transports, when each was created and last used. Public keys and credential ids are never returned.',
      security: read,
      params: PasskeyUserParams,
      querystring: PageQuery,
      response: { 200: PasskeysResponse, ...errorResponses(404) },
    },
    handler: (r) => passkeys.list(callerOf(r, 'environment'), r.params.userId, r.query),
  });
  app.patch(`${base}/:passkeyId`, {
    schema: {
      tags,
      operationId: 'renameDirectoryUserPasskey',
      summary: 'Rename a user’s passkey',
      description: 'Sets the name the user sees for the passkey (1 to 100 characters). Emits `user.passkey_renamed`.' + NOT_FOUND + PROTECTED,
      security: write,
      params: PasskeyParams,
      body: RenamePasskeyBody,
      response: { 200: PasskeyResponse, ...errorResponses(404) },
    },
    handler: (r) => passkeys.rename(callerOf(r, 'environment'), r.params.userId, r.params.passkeyId, r.body.name),
  });
  app.delete(`${base}/:passkeyId`, {
    schema: {
      tags,
      operationId: 'removeDirectoryUserPasskey',
      summary: 'Remove a user’s passkey',
      description:
        'Deletes the passkey: a sign-in with it is refused from then on (`unknown_credential`), and the user may register the authenticator again. Emits `user.passkey_removed`.' +
        NOT_FOUND +
        PROTECTED,
      security: write,
      params: PasskeyParams,
      response: { 200: SuccessIdResponse, ...errorResponses(404) },
    },
    handler: (r) => passkeys.remove(callerOf(r, 'environment'), r.params.userId, r.params.passkeyId),
  });
}
