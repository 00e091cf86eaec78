// Impersonation grants: an operator with impersonation:write acts as an active directory user for a bounded time,
// with a token shown once. Revoking ends the token on the next request everywhere (a trigger on the grants
// notifies every instance) and stops the grant's impersonation-expiry process, which otherwise marks it expired.
import { randomUUID } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { createImpersonationQueries } from '../../../../db/access/impersonation/queries.ts';
import { revokeGrant } from '../../../../db/access/impersonation/revoke.ts';
import type { ImpersonationGrant, ImpersonationSettings } from '../../../../db/access/impersonation/rows.ts';
import { createDirectoryUserQueries } from '../../../../db/directory/users/queries.ts';
import { createProcessOutboxQueries } from '../../../../db/processes/outbox.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { signImpersonationToken } from '../../../access/impersonation-tokens.ts';
import { listPage } from '../../../common/schemas.ts';
import { conflict, invalidField, orNotFound } from '../../../errors.ts';
import type { SigningKeys } from '../../../access/signing-keys.ts';
import type { GrantsQuery } from './schemas.ts';

type Db = Parameters<typeof createImpersonationQueries>[0];

export function createImpersonationService(deps: { pool: DatabasePool; keys: SigningKeys; issuer: string }) {
  const { pool } = deps;
  const find = (db: Db, caller: EnvironmentCaller, id: string, lock = false) =>
    orNotFound(createImpersonationQueries(db, caller.scope.environmentId).find(id, { lock }), 'impersonation_grant', id);

  return {
    find: (caller: EnvironmentCaller, id: string) => find(pool, caller, id),

    list: (caller: EnvironmentCaller, query: GrantsQuery) =>
      listPage('grants', query, (page) => createImpersonationQueries(pool, caller.scope.environmentId).findPage(query, page)),

    issue: (caller: EnvironmentCaller, input: { userId: string; reason: string; durationSeconds?: number | undefined }) =>
      pool.transaction(async (trx) => {
        const { environmentId, tenant } = caller.scope;
        const queries = createImpersonationQueries(trx, environmentId);
        const settings = await queries.settings();
        const maxSeconds = settings.maxDurationMinutes * 60;
        if (input.durationSeconds !== undefined && input.durationSeconds > maxSeconds) {
          throw invalidField('body.durationSeconds', `must be at most ${maxSeconds} (this environment's maxDurationMinutes)`);
        }
        const user = await createDirectoryUserQueries(trx, environmentId).findUser(input.userId, 'key share');
        if (!user) throw invalidField('body.userId', 'is not a user of this environment');
        if (!user.active) throw conflict('impersonation_grant.user_inactive', 'The user is inactive and cannot be impersonated.');
        const actor = { type: caller.actor.type, id: caller.actor.id ?? caller.principal.id };
        const durationSeconds = input.durationSeconds ?? maxSeconds;
        const tokenId = randomUUID();
        const grant = await queries.insert({ tenantId: tenant.id, userId: user.id, actor, reason: input.reason, tokenId, durationSeconds });
        const token = await signImpersonationToken(deps.keys, deps.issuer, {
          userId: user.id,
          actor,
          tokenId,
          grantId: grant.id,
          environmentId,
          tenantId: tenant.id,
          issuedAt: Date.parse(grant.createdAt),
          expiresAt: Date.parse(grant.expiresAt),
        });
        const notification = settings.notifyUser
          ? { userId: user.id, email: user.emails[0]?.value ?? null, operator: actor, reason: grant.reason, expiresAt: grant.expiresAt }
          : undefined;
        await record(trx, caller, {
          action: 'impersonation.grant.create',
          resource: { type: 'impersonation_grant', id: grant.id },
          after: grant,
          event: { type: 'impersonation.grant.created', data: { grant, ...(notification ? { notification } : {}) } },
        });
        await createProcessOutboxQueries(trx).enqueueStart({
          kind: 'impersonation-expiry',
          entityId: grant.id,
          tenantId: tenant.id,
          input: { grantId: grant.id, expiresAt: Date.parse(grant.expiresAt) },
        });
        return { grant, token, tokenType: 'Bearer' as const, expiresIn: durationSeconds };
      }),

    /** Idempotent: revoking a revoked grant answers it as it is; an expired grant cannot be revoked (409). */
    revoke: (caller: EnvironmentCaller, id: string, reason: string | undefined) =>
      pool.transaction(async (trx): Promise<ImpersonationGrant> => {
        const before = await find(trx, caller, id, true);
        if (before.status === 'revoked') return before;
        if (before.status === 'expired') throw conflict('impersonation_grant.expired', 'The impersonation grant has already expired.');
        const grant = await revokeGrant(trx, before, caller.actor, reason ?? null, (change) => record(trx, caller, change));
        return grant;
      }),

    settings: (caller: EnvironmentCaller) => createImpersonationQueries(pool, caller.scope.environmentId).settings(),

    saveSettings: (caller: EnvironmentCaller, settings: ImpersonationSettings) =>
      pool.transaction(async (trx) => {
        const queries = createImpersonationQueries(trx, caller.scope.environmentId);
        const before = await queries.settings();
        const saved = await queries.saveSettings(settings);
        await record(trx, caller, {
          action: 'impersonation.settings.update',
          resource: { type: 'impersonation_settings', id: caller.scope.environmentId },
          before,
          after: saved,
          event: { type: 'impersonation.settings.updated', data: { settings: saved } },
        });
        return saved;
      }),
  };
}

export type ImpersonationService = ReturnType<typeof createImpersonationService>;
