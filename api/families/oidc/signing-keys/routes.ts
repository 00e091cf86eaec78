import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import { OidcSigningKeysResponse, SigningKeyParams } from './schemas.ts';
import type { OidcSigningKeyService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Environments'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/oidc/signing-keys';

export function oidcSigningKeyRoutes(app: App, keys: OidcSigningKeyService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listOidcSigningKeys',
      summary: "List the environment's OpenID signing keys",
      description:
        'The public keys the environment’s OpenID provider publishes in its JWKS: the active ES256 key (default) and RS256 key (clients that ask for RS256 ID tokens), and the retiring keys that still verify tokens they signed.',
      security: requires('environment-settings:read'),
      params: SigningKeyParams,
      response: { 200: OidcSigningKeysResponse, ...errorResponses(404) },
    },
    handler: (r) => keys.list(callerOf(r, 'environment')),
  });
  app.post(`${base}/rotate`, {
    schema: {
      tags,
      operationId: 'rotateOidcSigningKeys',
      summary: "Rotate the environment's OpenID signing keys",
      description:
        'Creates a new active key per algorithm; the previous ones become `retiring` and stay in the JWKS until the tokens they signed have expired (`retiresAt`). Audited, with the event `oidc_signing_key.rotated`.',
      security: requires('environment-settings:write'),
      params: SigningKeyParams,
      response: { 200: OidcSigningKeysResponse, ...errorResponses(404) },
    },
    handler: (r) => keys.rotate(callerOf(r, 'environment')),
  });
}
