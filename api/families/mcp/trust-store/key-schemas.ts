// Request and response shapes of trust-store keys.
import { z } from 'zod';
import { TrustStoreKey } from '../../../../db/mcp/trust-store/rows.ts';
import { pageOf } from '../../../common/schemas.ts';
import { EntryParams } from './schemas.ts';

/** The longest grace period of a rotation: 30 days. */
export const MAX_GRACE_SECONDS = 2_592_000;

export const KeyParams = EntryParams.extend({ keyId: z.uuid() });

const Jwk = z
  .record(z.string(), z.unknown())
  .describe(
    'A PUBLIC JWK: EC P-256 (a point on the curve), OKP Ed25519 (32 bytes) or RSA ≥ 2048 bits with the exponent 65537; a private member (d, p, q, dp, dq, qi, k) is refused. 400 naming `body.jwk` or its member otherwise. `kid` defaults to its RFC 7638 thumbprint',
  );
const Alg = z
  .enum(['ES256', 'EdDSA', 'Ed25519', 'RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'])
  .describe('Defaults to the JWK `alg`, else ES256, EdDSA or RS256');

export const AddKeyBody = z.strictObject({ jwk: Jwk, alg: Alg.optional() }).meta({ id: 'AddTrustStoreKeyRequest' });
export const RotateKeyBody = z
  .strictObject({
    jwk: Jwk,
    alg: Alg.optional(),
    gracePeriodSeconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_GRACE_SECONDS)
      .optional()
      .describe('How long the previous active keys keep verifying (0: retired at once); TRUST_STORE_KEY_ROTATION_GRACE when absent'),
  })
  .meta({ id: 'RotateTrustStoreKeyRequest' });

export const KeyResponse = z.object({ key: TrustStoreKey }).meta({ id: 'TrustStoreKeyResponse' });
export const RotatedKeyResponse = z
  .object({ key: TrustStoreKey, retiring: z.array(TrustStoreKey).describe('The previously active keys, now retiring (or retired at a grace of 0)') })
  .meta({ id: 'RotatedTrustStoreKeyResponse' });
export const KeysList = pageOf('keys', TrustStoreKey).meta({ id: 'TrustStoreKeysList' });
