// ES256 keys for management access tokens: private keys encrypted under the master key, public keys
// published at /.well-known/jwks.json. Rotation adds a key that signs from then on; the retired key stays
// published until every token it signed has expired.
import { randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { DatabasePool } from 'slonik';
import { decrypt, encrypt } from '../../../../lib/crypto.ts';
import { createServiceStateQueries } from '../../../../db/shared/service-state.ts';
import { createSigningKeyQueries, type SigningKeyRow } from '../../../../db/identity/signing-keys/queries.ts';
import { record, type Caller } from '../../../access/caller.ts';
import { ApiError } from '../../../errors.ts';

export interface SigningKeys {
  /** The key new tokens are signed with. */
  current(): { kid: string; key: CryptoKey };
  /** The public key for a kid, reloading from the database once when the kid is unknown (another instance rotated). */
  publicKey(kid: string): Promise<CryptoKey | undefined>;
  jwks(): { keys: JWK[] };
  rotate(caller: Caller): Promise<{ kid: string }>;
  list(): Promise<SigningKeyRow[]>;
}

export async function createSigningKeys(pool: DatabasePool, masterKey: Buffer, graceSeconds: number): Promise<SigningKeys> {
  let published: { row: SigningKeyRow; publicKey: CryptoKey }[] = [];
  let signer: { kid: string; key: CryptoKey } | undefined;
  let lastReload = 0;

  const addKey = async (db: Parameters<typeof createSigningKeyQueries>[0]) => {
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
    rotate: async (caller) => {
      const kid = await pool.transaction(async (trx) => {
        // Keys sign every organization's tokens: only the operators (the bootstrap organization, whole) rotate them.
        const operators = await createServiceStateQueries(trx).findBootstrap();
        const { principal } = caller;
        if (!operators || !principal.organizationIds.includes(operators.organizationId) || principal.tenantIds !== null) {
          throw new ApiError(403, 'signing_key.operator_only', 'Only principals of the operator organization may rotate signing keys.');
        }
        await createSigningKeyQueries(trx).lockKeys();
        const created = await addKey(trx);
        await createSigningKeyQueries(trx).retireKeysExcept(created);
        await record(trx, caller, {
          action: 'signing_key.rotate',
          resource: { type: 'signing_key', id: created },
          scope: { organizationId: operators.organizationId },
          after: { kid: created },
          event: { type: 'signing_key.rotated', data: { kid: created } },
        });
        return created;
      });
      await load();
      return { kid };
    },
    list: async () => [...(await createSigningKeyQueries(pool).findPublishedKeys(graceSeconds))],
  };
}
