import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { OrganizationKey } from './rows.ts';
import { selectPage, type PageRequest } from '../../shared/pages.ts';

const columns = sql.fragment`
  k.id, k.organization_id AS "organizationId", k.name, k.prefix, k.description, k.expires_at AS "expiresAt",
  k.last_used_at AS "lastUsedAt", k.revoked_at AS "revokedAt", k.created_at AS "createdAt", k.updated_at AS "updatedAt",
  k.all_tenants AS "allTenants",
  coalesce((SELECT json_agg(json_build_object('id', kt.id, 'tenantId', kt.tenant_id, 'tenantName', t.name) ORDER BY kt.created_at, t.name, kt.id)
    FROM organization_key_tenants kt JOIN tenants t ON t.id = kt.tenant_id WHERE kt.key_id = k.id), '[]'::json) AS tenants,
  (k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())) AS active`;

/** What authentication needs to know of a key. */
const KeyAccess = z.object({
  id: z.uuid(),
  organizationId: z.uuid(),
  scopes: z.array(z.string()),
  allTenants: z.boolean(),
  tenantIds: z.array(z.uuid()),
  expiresAt: z.string().nullable(),
  revoked: z.boolean(),
  active: z.boolean(),
});
export type KeyAccess = z.infer<typeof KeyAccess>;

export interface NewOrganizationKey {
  organizationId: string;
  name: string;
  description: string | null;
  prefix: string;
  tokenHash: Buffer;
  scopes: string[];
  allTenants: boolean;
  tenantIds: string[];
  expiresAt: string | null;
}

export function createOrganizationKeyQueries(db: CommonQueryMethods) {
  const one = (organizationId: string, id: string) =>
    db.one(sql.type(OrganizationKey)`SELECT ${columns} FROM organization_keys k WHERE k.organization_id = ${organizationId} AND k.id = ${id}`);
  const setTenants = async (keyId: string, tenantIds: readonly string[]) => {
    await db.query(sql.unsafe`DELETE FROM organization_key_tenants WHERE key_id = ${keyId} AND NOT (tenant_id = ANY(${sql.array(tenantIds, 'uuid')}))`);
    await db.query(sql.unsafe`
      INSERT INTO organization_key_tenants (key_id, tenant_id) SELECT ${keyId}, unnest(${sql.array(tenantIds, 'uuid')})
      ON CONFLICT (key_id, tenant_id) DO NOTHING`);
  };

  return {
    findKeyAccessByHash: (tokenHash: Buffer) =>
      db.maybeOne(sql.type(KeyAccess)`
        SELECT k.id, k.organization_id AS "organizationId", k.scopes, k.all_tenants AS "allTenants",
          ARRAY(SELECT kt.tenant_id FROM organization_key_tenants kt WHERE kt.key_id = k.id) AS "tenantIds",
          k.expires_at AS "expiresAt", k.revoked_at IS NOT NULL AS revoked,
          (k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())) AS active
        FROM organization_keys k WHERE k.token_hash = ${sql.binary(tokenHash)}`),

    findKeyOfOrganization: (id: string, organizationId: string, lock = false) =>
      db.maybeOne(sql.type(OrganizationKey)`
        SELECT ${columns} FROM organization_keys k WHERE k.id = ${id} AND k.organization_id = ${organizationId}
        ${lock ? sql.fragment`FOR UPDATE OF k` : sql.fragment``}`),

    findKeysOfOrganization: (organizationId: string, page: PageRequest) =>
      selectPage(
        db,
        OrganizationKey,
        sql.fragment`SELECT ${columns} FROM organization_keys k WHERE k.organization_id = ${organizationId}`,
        sql.fragment`k.created_at DESC, k.id`,
        page,
      ),

    /** The ids among `tenantIds` that are linked to the organization. */
    findLinkedTenantIds: async (organizationId: string, tenantIds: readonly string[]) =>
      new Set(
        await db.anyFirst(sql.type(z.object({ id: z.uuid() }))`
        SELECT tenant_id AS id FROM organization_tenants
        WHERE organization_id = ${organizationId} AND tenant_id = ANY(${sql.array(tenantIds, 'uuid')})`),
      ),

    insertKey: async (key: NewOrganizationKey) => {
      const id = await db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO organization_keys (organization_id, name, description, prefix, token_hash, scopes, all_tenants, expires_at)
        VALUES (${key.organizationId}, ${key.name}, ${key.description}, ${key.prefix}, ${sql.binary(key.tokenHash)},
          ${sql.array(key.scopes, 'text')}, ${key.allTenants}, ${key.expiresAt})
        RETURNING id`);
      await setTenants(id, key.tenantIds);
      return one(key.organizationId, id);
    },

    replaceKeyTenants: async (organizationId: string, id: string, allTenants: boolean, tenantIds: readonly string[]) => {
      await db.query(sql.unsafe`
        UPDATE organization_keys SET all_tenants = ${allTenants}, updated_at = now() WHERE organization_id = ${organizationId} AND id = ${id}`);
      await setTenants(id, tenantIds);
      return one(organizationId, id);
    },

    revokeKey: async (organizationId: string, id: string) => {
      await db.query(sql.unsafe`
        UPDATE organization_keys SET revoked_at = coalesce(revoked_at, now()), updated_at = now() WHERE organization_id = ${organizationId} AND id = ${id}`);
      return one(organizationId, id);
    },

    // unscoped: authentication marks the key it has just found by its hash; the id came from that row.
    touchKey: (id: string) => db.query(sql.unsafe`UPDATE organization_keys SET last_used_at = now() WHERE id = ${id}`),
  };
}
