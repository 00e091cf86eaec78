// Provisioning tokens (adscim_…, adhris_…): shown once at creation and at each rotation, stored as hashes. Revoking,
// rotating or deleting one notifies every instance (a trigger on provisioning_tokens), which evicts it from its cache.
import type { DatabasePool } from 'slonik';
import { displayPrefix, generateCredential, hashSecret } from '../../../../lib/crypto.ts';
import type { EventType } from '../../../../db/event-catalog.ts';
import { createProvisioningTokenQueries } from '../../../../db/provisioning/provisioning-tokens/queries.ts';
import type { ProvisioningKind, ProvisioningToken } from '../../../../db/provisioning/provisioning-tokens/rows.ts';
import type { StoredValue } from '../../../../db/access/api-secrets/queries.ts';
import { conflict, invalidField, orNotFound } from '../../../errors.ts';
import { record, type CallerChange, type EnvironmentCaller } from '../../../access/caller.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';

type Db = Parameters<typeof createProvisioningTokenQueries>[0];
type Verb = 'create' | 'rotate' | 'revoke' | 'delete';
const EVENT_OF = {
  create: 'provisioning_token.created',
  rotate: 'provisioning_token.rotated',
  revoke: 'provisioning_token.revoked',
  delete: 'provisioning_token.deleted',
} as const satisfies Record<Verb, EventType>;

const PREFIX = { scim: 'adscim', hris: 'adhris' } as const;

export interface ProvisioningTokenServiceDeps {
  pool: DatabasePool;
  /** How long a rotated-out value keeps working when the rotation does not say (API_SECRET_ROTATION_GRACE). */
  rotationGraceMs: number;
}

/** A new token value: returned to the caller once, stored as its hash. */
function newValue(kind: ProvisioningKind): { token: string; stored: StoredValue } {
  const token = generateCredential(PREFIX[kind]);
  return { token, stored: { hash: hashSecret(token), prefix: displayPrefix(token), hint: token.slice(-4) } };
}

const audit = (verb: Verb, provisioningToken: ProvisioningToken, before: ProvisioningToken | null): CallerChange => ({
  action: `provisioning_token.${verb}`,
  resource: { type: 'provisioning_token', id: provisioningToken.id },
  before,
  after: verb === 'delete' ? null : provisioningToken,
  event: { type: EVENT_OF[verb], data: { provisioningToken } },
});

export function createProvisioningTokenService(deps: ProvisioningTokenServiceDeps) {
  const { pool } = deps;
  const find = (db: Db, caller: EnvironmentCaller, id: string, lock = false) =>
    orNotFound(createProvisioningTokenQueries(db, caller.scope.environmentId).find(id, { lock }), 'provisioning_token', id);

  return {
    find: (caller: EnvironmentCaller, id: string) => find(pool, caller, id),

    list: (caller: EnvironmentCaller, query: PageQuery) =>
      listPage('provisioningTokens', query, (page) => createProvisioningTokenQueries(pool, caller.scope.environmentId).findPage(page)),

    create: (
      caller: EnvironmentCaller,
      input: { name: string; kind: ProvisioningKind; description?: string | null; expiresAt?: string | null; rateLimitPerMinute?: number | null },
    ) => {
      if (input.expiresAt && Date.parse(input.expiresAt) <= Date.now()) throw invalidField('body.expiresAt', 'must be in the future');
      const { token, stored } = newValue(input.kind);
      return pool.transaction(async (trx) => {
        const provisioningToken = await createProvisioningTokenQueries(trx, caller.scope.environmentId).insert({
          tenantId: caller.scope.tenant.id,
          name: input.name,
          description: input.description ?? null,
          kind: input.kind,
          expiresAt: input.expiresAt ?? null,
          rateLimitPerMinute: input.rateLimitPerMinute ?? null,
          value: stored,
        });
        await record(trx, caller, audit('create', provisioningToken, null));
        return { provisioningToken, token };
      });
    },

    rotate: (caller: EnvironmentCaller, id: string, gracePeriodSeconds = deps.rotationGraceMs / 1000) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id, true);
        if (before.revokedAt) throw conflict('provisioning_token.revoked', 'The provisioning token is revoked; create a new one instead of rotating it.');
        if (!before.active) throw conflict('provisioning_token.expired', 'The provisioning token has expired; create a new one instead of rotating it.');
        const { token, stored } = newValue(before.kind);
        const provisioningToken = await createProvisioningTokenQueries(trx, caller.scope.environmentId).rotate(id, stored, Math.floor(gracePeriodSeconds));
        await record(trx, caller, audit('rotate', provisioningToken, before));
        return { provisioningToken, token };
      }),

    /** Idempotent: revoking a revoked token answers it as it is, without a new event. */
    revoke: (caller: EnvironmentCaller, id: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id, true);
        if (before.revokedAt) return before;
        const provisioningToken = await createProvisioningTokenQueries(trx, caller.scope.environmentId).revoke(id);
        await record(trx, caller, audit('revoke', provisioningToken, before));
        return provisioningToken;
      }),

    remove: (caller: EnvironmentCaller, id: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id, true);
        await createProvisioningTokenQueries(trx, caller.scope.environmentId).delete(id);
        await record(trx, caller, audit('delete', before, before));
        return { success: true as const, id };
      }),
  };
}

export type ProvisioningTokenService = ReturnType<typeof createProvisioningTokenService>;
