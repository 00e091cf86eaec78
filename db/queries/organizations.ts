import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const Id = z.object({ id: z.uuid() });

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

    countOrganizations: () => db.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM organizations`),
  };
}
