import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { Organization } from './rows.ts';
import { selectPage, type PageRequest } from '../../shared/pages.ts';

const Id = z.object({ id: z.uuid() });

const columns = sql.fragment`
  o.id, o.name, o.description, o.billing_email AS "billingEmail", o.logo_uri AS "logoUri", o.active,
  o.created_at AS "createdAt", o.updated_at AS "updatedAt"`;

export interface OrganizationChanges {
  name?: string;
  description?: string | null;
  billingEmail?: string | null;
}

const COLUMN: Record<keyof OrganizationChanges, string> = { name: 'name', description: 'description', billingEmail: 'billing_email' };

export function createOrganizationQueries(db: CommonQueryMethods) {
  return {
    insertOrganization: (org: { name: string; description?: string | null; billingEmail?: string | null }) =>
      db.oneFirst(sql.type(Id)`
        INSERT INTO organizations (name, description, billing_email)
        VALUES (${org.name}, ${org.description ?? null}, ${org.billingEmail ?? null}) RETURNING id`),

    insertMember: (member: { organizationId: string; userId: string; role: string }) =>
      db.oneFirst(sql.type(Id)`
        INSERT INTO organization_members (organization_id, user_id, role, joined_at)
        VALUES (${member.organizationId}, ${member.userId}, ${member.role}, now()) RETURNING id`),

    /** Records the service account that created the organization: it keeps reach over it (0022). */
    insertCreator: (organizationId: string, serviceAccountId: string) =>
      db.query(sql.unsafe`INSERT INTO organization_creators (organization_id, service_account_id) VALUES (${organizationId}, ${serviceAccountId})`),

    /** The organizations the service account created (beyond its own), which it reaches. */
    findOrganizationIdsCreatedBy: (serviceAccountId: string) =>
      db.anyFirst(sql.type(Id)`SELECT organization_id AS id FROM organization_creators WHERE service_account_id = ${serviceAccountId} ORDER BY created_at`),

    findOrganizationById: (id: string) => db.maybeOne(sql.type(Organization)`SELECT ${columns} FROM organizations o WHERE o.id = ${id}`),

    lockOrganizationById: (id: string) => db.maybeOne(sql.type(Organization)`SELECT ${columns} FROM organizations o WHERE o.id = ${id} FOR UPDATE`),

    /** The organizations among `ids` (the caller's), oldest first. */
    findOrganizationsAmong: (ids: readonly string[], page: PageRequest) =>
      selectPage(
        db,
        Organization,
        sql.fragment`SELECT ${columns} FROM organizations o WHERE o.id = ANY(${sql.array(ids, 'uuid')})`,
        sql.fragment`o.created_at, o.id`,
        page,
      ),

    updateOrganizationById: (id: string, changes: OrganizationChanges) => {
      const sets = (Object.keys(COLUMN) as (keyof OrganizationChanges)[])
        .filter((k) => changes[k] !== undefined)
        .map((k) => sql.fragment`${sql.identifier([COLUMN[k]])} = ${changes[k] ?? null}`);
      return db.one(sql.type(Organization)`
        WITH u AS (UPDATE organizations SET ${sql.join([...sets, sql.fragment`updated_at = now()`], sql.fragment`, `)} WHERE id = ${id} RETURNING *)
        SELECT ${columns} FROM u o`);
    },

    deleteOrganizationById: (id: string) => db.query(sql.unsafe`DELETE FROM organizations WHERE id = ${id}`),
  };
}
