import { z } from 'zod';

export const SigningKeyParams = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid() });

export const OidcSigningKey = z
  .object({
    kid: z.string(),
    alg: z.enum(['ES256', 'RS256']),
    status: z.enum(['active', 'retiring']).describe('`active` signs new tokens; `retiring` only verifies the tokens it signed until `retiresAt`'),
    publicJwk: z.record(z.string(), z.unknown()).describe('The public key as published in the JWKS'),
    createdAt: z.string(),
    retiresAt: z.string().nullable(),
  })
  .meta({ id: 'OidcSigningKey' });

export const OidcSigningKeysResponse = z.object({ keys: z.array(OidcSigningKey) }).meta({ id: 'OidcSigningKeysResponse' });
