import { z } from 'zod';
import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import type { SigningKeyService } from './service.ts';
import type { App } from '../../../types.ts';

const SigningKey = z
  .object({ kid: z.string(), algorithm: z.literal('ES256'), status: z.enum(['active', 'retired']), createdAt: z.string(), retiredAt: z.string().nullable() })
  .meta({ id: 'SigningKey' });

const tags = ['Authentication'];

export function signingKeyRoutes(app: App, keys: SigningKeyService) {
  const view = async () => ({
    keys: (await keys.list()).map((k) => ({ kid: k.kid, algorithm: 'ES256' as const, status: k.status, createdAt: k.createdAt, retiredAt: k.retiredAt })),
  });

  app.get('/v1/signing-keys', {
    schema: {
      tags,
      operationId: 'listSigningKeys',
      summary: 'List the keys that sign access tokens (active and recently retired)',
      description:
        'Lists the ES256 keys that sign management access tokens: the active one, and retired ones kept in the JWKS until the tokens they signed expire.',
      security: requires('signing-keys:read'),
      response: { 200: z.object({ keys: z.array(SigningKey) }), ...errorResponses() },
    },
    handler: view,
  });

  app.post('/v1/signing-keys/rotate', {
    schema: {
      tags,
      operationId: 'rotateSigningKey',
      summary: 'Add a new signing key and retire the current one',
      description:
        'Tokens signed by the retired key stay valid until they expire; the key stays in the JWKS until then. ' +
        'Operators only: a principal of another organization (or a key limited to some tenants) gets 403 `signing_key.operator_only`. ' +
        "The rotation is in the operator organization's audit log.",
      security: requires('signing-keys:write'),
      response: { 200: z.object({ keys: z.array(SigningKey) }), ...errorResponses() },
    },
    handler: async (request) => {
      await keys.rotate(callerOf(request));
      return view();
    },
  });
}
