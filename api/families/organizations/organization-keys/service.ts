import type { CommonQueryMethods, DatabasePool } from 'slonik';
import { displayPrefix, generateCredential, hashSecret } from '../../../../lib/crypto.ts';
import { createOrganizationKeyQueries } from '../../../../db/organizations/organization-keys/queries.ts';
import type { OrganizationKey } from '../../../../db/organizations/organization-keys/rows.ts';
import { invalidField, orNotFound } from '../../../errors.ts';
import { grants, SCOPE_FAMILIES } from '../../../scopes.ts';
import { record, type CallerChange, type OrganizationCaller } from '../../../access/caller.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';

// A key acts for its organization in its tenants, but manages no credentials or principals: no service
// accounts, keys, PATs or signing keys, and organizations read-only (no members, invitations or tenant links).
const CREDENTIAL_FAMILIES = new Set<string>(['service-accounts', 'organization-keys', 'personal-access-tokens', 'signing-keys']);
export const KEY_SCOPES = SCOPE_FAMILIES.filter((f) => !CREDENTIAL_FAMILIES.has(f)).map((f) => (f === 'organizations' ? `${f}:read` : `${f}:write`));

/** The key scopes the creator holds itself (a write it lacks falls back to the read it has). */
export const keyScopesFor = (held: readonly string[]) =>
  KEY_SCOPES.flatMap((s) => {
    if (grants(held, s)) return [s];
    const read = s.replace(/:write$/, ':read');
    return read !== s && grants(held, read) ? [read] : [];
  });

interface TenantChoice {
  allTenants?: boolean;
  tenantIds?: string[];
}

const tenantsOf = (key: OrganizationKey) => ({ allTenants: key.allTenants, tenantIds: (key.tenants ?? []).map((t) => t.tenantId) });

export function createOrganizationKeyService(pool: DatabasePool) {
  const find = (db: CommonQueryMethods, caller: OrganizationCaller, keyId: string, lock = false) =>
    orNotFound(createOrganizationKeyQueries(db).findKeyOfOrganization(keyId, caller.scope.organizationId, lock), 'organization_key', keyId);

  /** The tenant limit asked for, checked: listed tenants must be linked to the organization. */
  const checkTenants = async (db: CommonQueryMethods, organizationId: string, input: TenantChoice) => {
    const listed = input.tenantIds ?? [];
    const allTenants = input.allTenants ?? listed.length === 0;
    if (allTenants && listed.length > 0) throw invalidField('body.tenantIds', 'must be empty when allTenants is true');
    if (!allTenants && listed.length === 0) throw invalidField('body.tenantIds', 'must list at least one tenant when allTenants is false');
    const linked = await createOrganizationKeyQueries(db).findLinkedTenantIds(organizationId, listed);
    const stray = listed.findIndex((id) => !linked.has(id));
    if (stray >= 0) throw invalidField(`body.tenantIds.${stray}`, 'is not a tenant of this organization', 'organization_key.tenant_not_in_organization');
    return { allTenants, tenantIds: [...new Set(listed)] };
  };

  const audit = (action: 'create' | 'revoke' | 'update_tenants', before: OrganizationKey | null, key: OrganizationKey): Omit<CallerChange, 'event'> => ({
    action: `organization_key.${action}`,
    resource: { type: 'organization_key', id: key.id },
    before,
    after: key,
  });

  return {
    list: (caller: OrganizationCaller, query: PageQuery) =>
      listPage('keys', query, (page) => createOrganizationKeyQueries(pool).findKeysOfOrganization(caller.scope.organizationId, page)),

    get: (caller: OrganizationCaller, keyId: string) => find(pool, caller, keyId),

    create: async (caller: OrganizationCaller, input: { name: string; description?: string | null; expiresAt?: string | null } & TenantChoice) => {
      const { organizationId } = caller.scope;
      if (input.expiresAt && Date.parse(input.expiresAt) <= Date.now()) throw invalidField('body.expiresAt', 'must be in the future');
      const fullToken = generateCredential('adok');
      return pool.transaction(async (trx) => {
        const tenants = await checkTenants(trx, organizationId, input);
        const key = await createOrganizationKeyQueries(trx).insertKey({
          organizationId,
          name: input.name,
          description: input.description ?? null,
          prefix: displayPrefix(fullToken),
          tokenHash: hashSecret(fullToken),
          scopes: keyScopesFor(caller.principal.scopes),
          ...tenants,
          expiresAt: input.expiresAt ?? null,
        });
        await record(trx, caller, { ...audit('create', null, key), event: { type: 'organization_key.created', data: { key } } });
        return { key, fullToken };
      });
    },

    updateTenants: (caller: OrganizationCaller, keyId: string, input: TenantChoice) =>
      pool.transaction(async (trx) => {
        if (input.allTenants === undefined && input.tenantIds === undefined) throw invalidField('body', 'must give allTenants or tenantIds');
        const before = await find(trx, caller, keyId, true);
        const tenants = await checkTenants(trx, caller.scope.organizationId, input);
        const key = await createOrganizationKeyQueries(trx).replaceKeyTenants(caller.scope.organizationId, keyId, tenants.allTenants, tenants.tenantIds);
        await record(trx, caller, {
          ...audit('update_tenants', before, key),
          event: { type: 'organization_key.tenants_updated', data: { key, previous: tenantsOf(before) } },
        });
        return key;
      }),

    revoke: (caller: OrganizationCaller, keyId: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, keyId, true);
        if (before.revokedAt) return before;
        const key = await createOrganizationKeyQueries(trx).revokeKey(caller.scope.organizationId, keyId);
        await record(trx, caller, { ...audit('revoke', before, key), event: { type: 'organization_key.revoked', data: { key } } });
        return key;
      }),
  };
}

export type OrganizationKeyService = ReturnType<typeof createOrganizationKeyService>;
