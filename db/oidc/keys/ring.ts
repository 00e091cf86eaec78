// An environment's signing key ring: an active ES256 and RS256 key (created on first use, once even when two
// instances build at the same time), then the retiring keys, as private JWKs. The provider (api/oidc/providers.ts)
// and the back-channel logout process (activities/back-channel-logout.ts) sign with it.
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import type { CommonQueryMethods } from 'slonik';
import { decrypt, encrypt } from '../../../lib/crypto.ts';
import { createOidcSigningKeyQueries, type OidcSigningKeyRow } from './queries.ts';

export const SIGNING_ALGS = ['ES256', 'RS256'] as const;

/** Creates a new active key of `alg` unless one exists (ON CONFLICT DO NOTHING on the one-active index). */
export async function addActiveKey(db: CommonQueryMethods, masterKey: Buffer, environmentId: string, alg: (typeof SIGNING_ALGS)[number]) {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'RS256' ? { modulusLength: 2048 } : {}) });
  const kid = randomUUID();
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  const privateKeyEncrypted = encrypt(masterKey, JSON.stringify(await exportJWK(privateKey)));
  await createOidcSigningKeyQueries(db, environmentId).insertActiveIfNone({ kid, alg, publicJwk, privateKeyEncrypted });
}

/** The published keys (active first), creating the missing active ones. */
export async function loadKeyRing(db: CommonQueryMethods, masterKey: Buffer, environmentId: string): Promise<readonly OidcSigningKeyRow[]> {
  const queries = createOidcSigningKeyQueries(db, environmentId);
  let rows = await queries.findPublished();
  const missing = SIGNING_ALGS.filter((alg) => !rows.some((r) => r.alg === alg && r.status === 'active'));
  if (missing.length > 0) {
    for (const alg of missing) await addActiveKey(db, masterKey, environmentId, alg);
    // Re-read: another instance may have won the insert.
    rows = await queries.findPublished();
  }
  return rows;
}

/** The private JWKs for `new Provider({ jwks })`: the provider signs with the first key of an alg, so active first. */
export const providerJwks = (rows: readonly OidcSigningKeyRow[], masterKey: Buffer): { keys: JWK[] } => ({
  keys: rows.map((r) => ({ ...(JSON.parse(decrypt(masterKey, r.privateKeyEncrypted)) as JWK), kid: r.kid, alg: r.alg, use: 'sig' })),
});
