// Environment API secrets (adenv_…): shown once at creation and at each rotation, stored as hashes. Revoking,
// rotating or deleting one notifies every instance (a trigger on api_secrets), which evicts it from its cache.
import type { DatabasePool } from 'slonik';
import { displayPrefix, generateCredential, hashSecret } from '../../../../lib/crypto.ts';
import type { EventType } from '../../../../db/event-catalog.ts';
import { createApiSecretQueries, type StoredValue } from '../../../../db/access/api-secrets/queries.ts';
import type { ApiSecret } from '../../../../db/access/api-secrets/rows.ts';
import { conflict, invalidField, orNotFound } from '../../../errors.ts';
import { record, type CallerChange, type EnvironmentCaller } from '../../../access/caller.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';
import type { SecretPurpose } from '../../../../lib/secret-purposes.ts';

type Db = Parameters<typeof createApiSecretQueries>[0];
type Verb = 'create' | 'update' | 'rotate' | 'revoke' | 'delete';
const EVENT_OF = {
  create: 'api_secret.created',
  update: 'api_secret.updated',
  rotate: 'api_secret.rotated',
  revoke: 'api_secret.revoked',
  delete: 'api_secret.deleted',
} as const satisfies Record<Verb, EventType>;

export interface ApiSecretServiceDeps {
  pool: DatabasePool;
  /** How long a rotated-out value keeps working when the rotation does not say (API_SECRET_ROTATION_GRACE). */
  rotationGraceMs: number;
}

/** A new secret value: returned to the caller once, stored as its hash. */
function newValue(): { secret: string; stored: StoredValue } {
  const secret = generateCredential('adenv');
  return { secret, stored: { hash: hashSecret(secret), prefix: displayPrefix(secret), hint: secret.slice(-4) } };
}

const audit = (verb: Verb, apiSecret: ApiSecret, before: ApiSecret | null): CallerChange => ({
  action: `api_secret.${verb}`,
  resource: { type: 'api_secret', id: apiSecret.id },
  before,
  after: verb === 'delete' ? null : apiSecret,
  event: { type: EVENT_OF[verb], data: { apiSecret } },
});

export function createApiSecretService(deps: ApiSecretServiceDeps) {
  const { pool } = deps;
  const find = (db: Db, caller: EnvironmentCaller, id: string, lock = false) =>
    orNotFound(createApiSecretQueries(db, caller.scope.environmentId).find(id, { lock }), 'api_secret', id);

  return {
    find: (caller: EnvironmentCaller, id: string) => find(pool, caller, id),

    list: (caller: EnvironmentCaller, query: PageQuery) =>
      listPage('apiSecrets', query, (page) => createApiSecretQueries(pool, caller.scope.environmentId).findPage(page)),

    create: (
      caller: EnvironmentCaller,
      input: { name: string; description?: string | null; purposes: SecretPurpose[]; expiresAt?: string | null; rateLimitPerMinute?: number | null },
    ) => {
      if (input.expiresAt && Date.parse(input.expiresAt) <= Date.now()) throw invalidField('body.expiresAt', 'must be in the future');
      const { secret, stored } = newValue();
      return pool.transaction(async (trx) => {
        const apiSecret = await createApiSecretQueries(trx, caller.scope.environmentId).insert({
          tenantId: caller.scope.tenant.id,
          name: input.name,
          description: input.description ?? null,
          purposes: input.purposes,
          expiresAt: input.expiresAt ?? null,
          rateLimitPerMinute: input.rateLimitPerMinute ?? null,
          value: stored,
        });
        await record(trx, caller, audit('create', apiSecret, null));
        return { apiSecret, secret };
      });
    },

    update: (caller: EnvironmentCaller, id: string, changes: { name?: string; description?: string | null; rateLimitPerMinute?: number | null }) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id, true);
        const unchanged =
          (changes.name ?? before.name) === before.name &&
          (changes.description === undefined || changes.description === before.description) &&
          (changes.rateLimitPerMinute === undefined || changes.rateLimitPerMinute === before.rateLimitPerMinute);
        if (unchanged) return before;
        const apiSecret = await createApiSecretQueries(trx, caller.scope.environmentId).update(id, changes);
        await record(trx, caller, audit('update', apiSecret, before));
        return apiSecret;
      }),

    rotate: (caller: EnvironmentCaller, id: string, gracePeriodSeconds = deps.rotationGraceMs / 1000) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id, true);
        if (before.revokedAt) throw conflict('api_secret.revoked', 'The API secret is revoked; create a new one instead of rotating it.');
        if (!before.active) throw conflict('api_secret.expired', 'The API secret has expired; create a new one instead of rotating it.');
        const { secret, stored } = newValue();
        const apiSecret = await createApiSecretQueries(trx, caller.scope.environmentId).rotate(id, stored, Math.floor(gracePeriodSeconds));
        await record(trx, caller, audit('rotate', apiSecret, before));
        return { apiSecret, secret };
      }),

    /** Idempotent: revoking a revoked secret answers it as it is, without a new event. */
    revoke: (caller: EnvironmentCaller, id: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id, true);
        if (before.revokedAt) return before;
        const apiSecret = await createApiSecretQueries(trx, caller.scope.environmentId).revoke(id);
        await record(trx, caller, audit('revoke', apiSecret, before));
        return apiSecret;
      }),

    remove: (caller: EnvironmentCaller, id: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id, true);
        await createApiSecretQueries(trx, caller.scope.environmentId).delete(id);
        await record(trx, caller, audit('delete', before, before));
        return { success: true as const, id };
      }),
  };
}

export type ApiSecretService = ReturnType<typeof createApiSecretService>;
