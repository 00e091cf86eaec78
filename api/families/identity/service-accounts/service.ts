import { randomBytes } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { displayPrefix, generateCredential, hashSecret } from '../../../../lib/crypto.ts';
import { recordChange } from '../../../../db/shared/changes.ts';
import type { EventType } from '../../../../db/event-catalog.ts';
import type { ServiceAccount } from '../../../../db/identity/credentials-rows.ts';
import { notifyCredentialChange } from '../../../../db/shared/notifications.ts';
import { createServiceAccountQueries } from '../../../../db/identity/service-accounts/queries.ts';
import { invalidField, notFound } from '../../../errors.ts';
import { narrow } from '../../../scopes.ts';
import type { Caller } from '../../../access/caller.ts';

type Verb = 'create' | 'update' | 'rotate_secret' | 'delete';
const EVENT_OF = {
  create: 'service_account.created',
  update: 'service_account.updated',
  rotate_secret: 'service_account.secret_rotated',
  delete: 'service_account.deleted',
} as const satisfies Record<Verb, EventType>;

const newClientId = () => `sa_${randomBytes(12).toString('hex')}`;

export function createServiceAccountService(pool: DatabasePool) {
  const reachOrganization = (caller: Caller, organizationId: string) => {
    if (!caller.principal.organizationIds.includes(organizationId)) throw notFound('organization', organizationId);
  };
  const find = async (db: Parameters<typeof createServiceAccountQueries>[0], caller: Caller, organizationId: string, id: string) => {
    reachOrganization(caller, organizationId);
    const sa = await createServiceAccountQueries(db).findServiceAccountById(id);
    if (!sa || sa.organizationId !== organizationId) throw notFound('service_account', id);
    return sa;
  };
  // Nobody hands out scopes they do not hold themselves.
  const checkScopes = (caller: Caller, scopes: string[]) => {
    const beyond = scopes.filter((s) => narrow(caller.principal.scopes, [s]).length === 0);
    if (beyond.length > 0)
      throw invalidField('body.scopes', `includes scopes the caller does not hold: ${beyond.join(', ')}`, 'service_account.scope_not_held');
  };
  const audit = (caller: Caller, action: Verb, organizationId: string, id: string, before: ServiceAccount | null, after: ServiceAccount | null) => ({
    actor: caller.actor,
    origin: caller.origin,
    action: `service_account.${action}`,
    resource: { type: 'service_account', id },
    scope: { organizationId },
    before: before as Record<string, unknown> | null,
    after: after as Record<string, unknown> | null,
    event: { type: EVENT_OF[action], data: { serviceAccount: (after ?? before)! } },
  });

  return {
    list: (caller: Caller, organizationId: string, page: { limit: number; offset: number }) => {
      reachOrganization(caller, organizationId);
      return createServiceAccountQueries(pool).findServiceAccountsByOrganization(organizationId, page);
    },

    get: (caller: Caller, organizationId: string, id: string) => find(pool, caller, organizationId, id),

    create: (
      caller: Caller,
      organizationId: string,
      input: { name: string; description?: string | null; scopes?: string[] },
      preset?: { clientId?: string; clientSecret?: string },
    ) => {
      reachOrganization(caller, organizationId);
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
        await recordChange(trx, audit(caller, 'create', organizationId, serviceAccount.id, null, serviceAccount));
        return { serviceAccount, clientSecret };
      });
    },

    update: (
      caller: Caller,
      organizationId: string,
      id: string,
      changes: { name?: string; description?: string | null; scopes?: string[]; active?: boolean },
    ) => {
      if (changes.scopes) checkScopes(caller, changes.scopes);
      return pool.transaction(async (trx) => {
        const before = await find(trx, caller, organizationId, id);
        const after = await createServiceAccountQueries(trx).updateServiceAccountById(id, changes);
        if (changes.active !== undefined || changes.scopes) await notifyCredentialChange(trx, id);
        await recordChange(trx, audit(caller, 'update', organizationId, id, before, after));
        return after;
      });
    },

    rotateSecret: (caller: Caller, organizationId: string, id: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, organizationId, id);
        const clientSecret = generateCredential('adsa');
        const serviceAccount = await createServiceAccountQueries(trx).replaceServiceAccountSecret(id, hashSecret(clientSecret), displayPrefix(clientSecret));
        await recordChange(trx, audit(caller, 'rotate_secret', organizationId, id, before, serviceAccount));
        return { serviceAccount, clientSecret };
      }),

    remove: (caller: Caller, organizationId: string, id: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, organizationId, id);
        await createServiceAccountQueries(trx).deleteServiceAccountById(id);
        await notifyCredentialChange(trx, id);
        await recordChange(trx, audit(caller, 'delete', organizationId, id, before, null));
        return before;
      }),
  };
}

export type ServiceAccountService = ReturnType<typeof createServiceAccountService>;
