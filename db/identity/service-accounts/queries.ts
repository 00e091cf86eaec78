import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { ServiceAccount } from '../credentials-rows.ts';
import { selectPage, type PageRequest } from '../../shared/pages.ts';

const columns = sql.fragment`
  id, organization_id AS "organizationId", client_id AS "clientId", name, description, last_used_at AS "lastUsedAt",
  scopes, active, created_at AS "createdAt", updated_at AS "updatedAt"`;

/** `tokenGeneration`: what the access tokens it issues now carry (claim `gen`); disabling the account starts the next one. */
const WithSecret = ServiceAccount.extend({ secretHash: z.instanceof(Buffer), tokenGeneration: z.number().int() });

/** What authentication needs to know of a service account. */
const ServiceAccountAccess = z.object({
  id: z.uuid(),
  organizationId: z.uuid(),
  scopes: z.array(z.string()),
  active: z.boolean(),
  tokenGeneration: z.number().int(),
});

export interface NewServiceAccount {
  organizationId: string;
  clientId: string;
  name: string;
  description: string | null;
  secretHash: Buffer;
  secretPrefix: string;
  scopes: string[];
}

export function createServiceAccountQueries(db: CommonQueryMethods) {
  return {
    // unscoped: authentication; the presented client id selects the account, and with it its organization.
    findServiceAccountByClientId: (clientId: string) =>
      db.maybeOne(sql.type(WithSecret)`
        SELECT ${columns}, secret_hash AS "secretHash", token_generation AS "tokenGeneration" FROM service_accounts WHERE client_id = ${clientId}`),

    findServiceAccountById: (organizationId: string, id: string) =>
      db.maybeOne(sql.type(ServiceAccount)`SELECT ${columns} FROM service_accounts WHERE organization_id = ${organizationId} AND id = ${id}`),

    findServiceAccountAccess: (id: string) =>
      db.maybeOne(sql.type(ServiceAccountAccess)`
        SELECT id, organization_id AS "organizationId", scopes, active, token_generation AS "tokenGeneration" FROM service_accounts WHERE id = ${id}`),

    findServiceAccountsByOrganization: (organizationId: string, page: PageRequest) =>
      selectPage(
        db,
        ServiceAccount,
        sql.fragment`SELECT ${columns} FROM service_accounts WHERE organization_id = ${organizationId}`,
        sql.fragment`created_at, id`,
        page,
      ),

    insertServiceAccount: (sa: NewServiceAccount) =>
      db.one(sql.type(ServiceAccount)`
        INSERT INTO service_accounts (organization_id, client_id, name, description, secret_hash, secret_prefix, scopes)
        VALUES (${sa.organizationId}, ${sa.clientId}, ${sa.name}, ${sa.description}, ${sql.binary(sa.secretHash)},
          ${sa.secretPrefix}, ${sql.array(sa.scopes, 'text')})
        RETURNING ${columns}`),

    updateServiceAccountById: (
      organizationId: string,
      id: string,
      changes: { name?: string; description?: string | null; scopes?: string[]; active?: boolean },
    ) => {
      const sets = [
        changes.name !== undefined && sql.fragment`name = ${changes.name}`,
        changes.description !== undefined && sql.fragment`description = ${changes.description}`,
        changes.scopes !== undefined && sql.fragment`scopes = ${sql.array(changes.scopes, 'text')}`,
        changes.active !== undefined && sql.fragment`active = ${changes.active}`,
        sql.fragment`updated_at = now()`,
      ].filter((f) => f !== false);
      return db.one(sql.type(ServiceAccount)`
        UPDATE service_accounts SET ${sql.join(sets, sql.fragment`, `)} WHERE organization_id = ${organizationId} AND id = ${id} RETURNING ${columns}`);
    },

    replaceServiceAccountSecret: (organizationId: string, id: string, secretHash: Buffer, secretPrefix: string) =>
      db.one(sql.type(ServiceAccount)`
        UPDATE service_accounts SET secret_hash = ${sql.binary(secretHash)}, secret_prefix = ${secretPrefix}, updated_at = now()
        WHERE organization_id = ${organizationId} AND id = ${id} RETURNING ${columns}`),

    deleteServiceAccountById: (organizationId: string, id: string) =>
      db.query(sql.unsafe`DELETE FROM service_accounts WHERE organization_id = ${organizationId} AND id = ${id}`),

    // unscoped: authentication marks the account it has just found by its credential; the id came from that row.
    touchServiceAccount: (id: string) => db.query(sql.unsafe`UPDATE service_accounts SET last_used_at = now() WHERE id = ${id}`),
  };
}
