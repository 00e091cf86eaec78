// An environment's OpenID signing key ring: list it, rotate it. A rotation makes a new active key per algorithm and
// keeps the previous ones in the JWKS until every token they signed has expired (the longest lifetime of signed
// tokens in the environment's session config, plus five minutes of clock skew).
import type { DatabasePool } from 'slonik';
import { createEnvironmentQueries } from '../../../../db/projects/environments/queries.ts';
import { createOidcSigningKeyQueries, type OidcSigningKeyRow } from '../../../../db/oidc/keys/queries.ts';
import { keyRetirement } from '../../../../db/oidc/keys/retirement.ts';
import { createProviderSnapshotQueries } from '../../../../db/oidc/provider/snapshot.ts';
import { effectiveSessionConfig } from '../../../../lib/oidc/session-config.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { addActiveKey, loadKeyRing, SIGNING_ALGS } from '../../../../db/oidc/keys/ring.ts';

const SKEW_SECONDS = 300;

const view = (rows: readonly OidcSigningKeyRow[]) => ({
  keys: rows.map((r) => ({
    kid: r.kid,
    alg: r.alg,
    status: r.status as 'active' | 'retiring',
    publicJwk: r.publicJwk,
    createdAt: r.createdAt,
    retiresAt: r.retiresAt,
  })),
});

export function createOidcSigningKeyService(pool: DatabasePool, masterKey: Buffer) {
  return {
    list: async (caller: EnvironmentCaller) => view(await loadKeyRing(pool, masterKey, caller.scope.environmentId)),

    rotate: (caller: EnvironmentCaller) =>
      pool.transaction(async (trx) => {
        const { environmentId } = caller.scope;
        await createEnvironmentQueries(trx, caller.scope.tenant.id).lock(environmentId);
        const queries = createOidcSigningKeyQueries(trx, environmentId);
        const before = await loadKeyRing(trx, masterKey, environmentId);
        const session = effectiveSessionConfig((await createProviderSnapshotQueries(trx, environmentId).load())?.sessionConfig);
        const retiresIn = Math.max(session.accessTokenLifetimeSeconds, session.idTokenLifetimeSeconds) + SKEW_SECONDS;
        // Keys past their date that the clean-up process has not retired yet: recorded like its retirements.
        for (const key of await queries.retireExpired()) await record(trx, caller, keyRetirement(key));
        for (const alg of SIGNING_ALGS) {
          await queries.retireActive(alg, retiresIn);
          await addActiveKey(trx, masterKey, environmentId, alg);
        }
        const after = await queries.findPublished();
        const kids = after.filter((k) => k.status === 'active').map((k) => k.kid);
        const retiresAt = after.find((k) => before.some((b) => b.kid === k.kid && b.status === 'active'))?.retiresAt ?? new Date().toISOString();
        await record(trx, caller, {
          action: 'oidc_signing_key.rotate',
          resource: { type: 'environment', id: environmentId },
          before: { kids: before.filter((k) => k.status === 'active').map((k) => k.kid) },
          after: { kids },
          event: { type: 'oidc_signing_key.rotated', data: { environmentId, kids, retiresAt } },
        });
        return view(after);
      }),
  };
}

export type OidcSigningKeyService = ReturnType<typeof createOidcSigningKeyService>;
