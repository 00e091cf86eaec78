// The key ring of management access tokens (ES256): what the auth core needs to sign and verify, kept here so that
// it does not import the signing-keys family. Private keys are encrypted under the master key, public keys
// published at /.well-known/jwks.json; a retired key stays published until every token it signed has expired.
// Who may rotate, and the audit of it, are the family's (api/families/identity/signing-keys/service.ts).
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { decrypt, encrypt } from '../../lib/crypto.ts';
import { createSigningKeyQueries, type SigningKeyRow } from '../../db/identity/signing-keys/queries.ts';

export interface SigningKeys {
  /** The key new tokens are signed with. */
  current(): { kid: string; key: CryptoKey };
  /** The public key for a kid, reloading from the database once when the kid is unknown (another instance rotated). */
  publicKey(kid: string): Promise<CryptoKey | undefined>;
  jwks(): { keys: JWK[] };
  list(): Promise<SigningKeyRow[]>;
  /** Inside `trx`: adds a key that signs from then on and retires the others; call `reload()` once `trx` committed. */
  replaceActive(trx: CommonQueryMethods): Promise<{ kid: string }>;
  /** Reads the published keys again (after a rotation). */
  reload(): Promise<void>;
}

export async function createSigningKeys(pool: DatabasePool, masterKey: Buffer, graceSeconds: number): Promise<SigningKeys> {
  let published: { row: SigningKeyRow; publicKey: CryptoKey }[] = [];
  let signer: { kid: string; key: CryptoKey } | undefined;
  let lastReload = 0;

  const addKey = async (db: CommonQueryMethods) => {
    const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
    const kid = randomUUID();
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
    const privateJwk = await exportJWK(privateKey);
    await createSigningKeyQueries(db).insertKey({ kid, publicJwk, privateKeyEncrypted: encrypt(masterKey, JSON.stringify(privateJwk)) });
    return kid;
  };

  const load = async () => {
    const rows = await createSigningKeyQueries(pool).findPublishedKeys(graceSeconds);
    published = await Promise.all(rows.map(async (row) => ({ row, publicKey: (await importJWK(row.publicJwk as JWK, 'ES256')) as CryptoKey })));
    const active = rows.find((r) => r.status === 'active');
    if (active && active.kid !== signer?.kid) {
      signer = { kid: active.kid, key: (await importJWK(JSON.parse(decrypt(masterKey, active.privateKeyEncrypted)) as JWK, 'ES256')) as CryptoKey };
    }
    lastReload = Date.now();
  };

  await pool.transaction(async (trx) => {
    await createSigningKeyQueries(trx).lockKeys();
    const rows = await createSigningKeyQueries(trx).findPublishedKeys(graceSeconds);
    if (!rows.some((r) => r.status === 'active')) await addKey(trx);
  });
  await load();

  return {
    current: () => {
      if (!signer) throw new Error('no active signing key');
      // Another instance may have rotated: pick its key up within a minute, without blocking this request.
      if (Date.now() - lastReload > 60_000) {
        lastReload = Date.now();
        load().catch(() => {});
      }
      return signer;
    },
    publicKey: async (kid) => {
      const hit = published.find((k) => k.row.kid === kid);
      if (hit || Date.now() - lastReload < 5_000) return hit?.publicKey;
      await load();
      return published.find((k) => k.row.kid === kid)?.publicKey;
    },
    jwks: () => ({ keys: published.map((k) => k.row.publicJwk as JWK) }),
    list: async () => [...(await createSigningKeyQueries(pool).findPublishedKeys(graceSeconds))],
    replaceActive: async (trx) => {
      await createSigningKeyQueries(trx).lockKeys();
      const kid = await addKey(trx);
      await createSigningKeyQueries(trx).retireKeysExcept(kid);
      return { kid };
    },
    reload: load,
  };
}
