import { randomBytes } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { displayPrefix, generateCredential, hashSecret } from '../../../../lib/crypto.ts';
import type { EventType } from '../../../../db/event-catalog.ts';
import type { ServiceAccount } from '../../../../db/identity/credentials-rows.ts';
import { createServiceAccountQueries } from '../../../../db/identity/service-accounts/queries.ts';
import { invalidField, notFound } from '../../../errors.ts';
import { narrow } from '../../../scopes.ts';
import { record, type Caller, type CallerChange, type OrganizationCaller } from '../../../access/caller.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';

type Verb = 'create' | 'update' | 'rotate_secret' | 'delete';
const EVENT_OF = {
  create: 'service_account.created',
  update: 'service_account.updated',
  rotate_secret: 'service_account.secret_rotated',
  delete: 'service_account.deleted',
} as const satisfies Record<Verb, EventType>;

const newClientId = () => `sa_${randomBytes(12).toString('hex')}`;

export function createServiceAccountService(pool: DatabasePool) {
  const find = async (db: Parameters<typeof createServiceAccountQueries>[0], caller: OrganizationCaller, id: string) => {
    const sa = await createServiceAccountQueries(db).findServiceAccountById(caller.scope.organizationId, id);
    if (sa?.organizationId !== caller.scope.organizationId) throw notFound('service_account', id);
    return sa;
  };
  // Nobody hands out scopes they do not hold themselves.
  const checkScopes = (caller: Caller, scopes: string[]) => {
    const beyond = scopes.filter((s) => narrow(caller.principal.scopes, [s]).length === 0);
    if (beyond.length > 0)
      throw invalidField('body.scopes', `includes scopes the caller does not hold: ${beyond.join(', ')}`, 'service_account.scope_not_held');
  };
  const audit = (action: Verb, id: string, before: ServiceAccount | null, after: ServiceAccount | null): CallerChange => ({
    action: `service_account.${action}`,
    resource: { type: 'service_account', id },
    before: before as Record<string, unknown> | null,
    after: after as Record<string, unknown> | null,
    event: { type: EVENT_OF[action], data: { serviceAccount: (after ?? before)! } },
  });

  return {
    list: (caller: OrganizationCaller, query: PageQuery) =>
      listPage('serviceAccounts', query, (page) => createServiceAccountQueries(pool).findServiceAccountsByOrganization(caller.scope.organizationId, page)),

    get: (caller: OrganizationCaller, id: string) => find(pool, caller, id),

    create: (
      caller: OrganizationCaller,
      input: { name: string; description?: string | null; scopes?: string[] },
      preset?: { clientId?: string; clientSecret?: string },
    ) => {
      const { organizationId } = caller.scope;
      const scopes = input.scopes ?? [];
      checkScopes(caller, scopes);
      const clientSecret = preset?.clientSecret ?? generateCredential('adsa');
      return pool.transaction(async (trx) => {
        const serviceAccount = await createServiceAccountQueries(trx).insertServiceAccount({
          organizationId,
          clientId: preset?.clientId ?? newClientId(),
          name: input.name,
          description: input.description ?? null,
          secretHash: hashSecret(clientSecret),
          secretPrefix: displayPrefix(clientSecret),
          scopes,
        });
        await record(trx, caller, audit('create', serviceAccount.id, null, serviceAccount));
        return { serviceAccount, clientSecret };
      });
    },

    update: (caller: OrganizationCaller, id: string, changes: { name?: string; description?: string | null; scopes?: string[]; active?: boolean }) => {
      if (changes.scopes) checkScopes(caller, changes.scopes);
      return pool.transaction(async (trx) => {
        const before = await find(trx, caller, id);
        const after = await createServiceAccountQueries(trx).updateServiceAccountById(caller.scope.organizationId, id, changes);
        await record(trx, caller, audit('update', id, before, after));
        return after;
      });
    },

    rotateSecret: (caller: OrganizationCaller, id: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id);
        const clientSecret = generateCredential('adsa');
        const serviceAccount = await createServiceAccountQueries(trx).replaceServiceAccountSecret(
          caller.scope.organizationId,
          id,
          hashSecret(clientSecret),
          displayPrefix(clientSecret),
        );
        await record(trx, caller, audit('rotate_secret', id, before, serviceAccount));
        return { serviceAccount, clientSecret };
      }),

    remove: (caller: OrganizationCaller, id: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id);
        await createServiceAccountQueries(trx).deleteServiceAccountById(caller.scope.organizationId, id);
        await record(trx, caller, audit('delete', id, before, null));
        return before;
      }),
  };
}

export type ServiceAccountService = ReturnType<typeof createServiceAccountService>;
