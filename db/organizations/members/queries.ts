// Members of an organization: users with a role, active once they joined (a pending invitee is inactive).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { OrganizationMember } from '../organizations/rows.ts';
import { selectPage, type PageRequest } from '../../shared/pages.ts';

const Count = z.object({ n: z.number() });
const Id = z.object({ id: z.uuid() });

/** The OrganizationUser shape of the user `u`. */
export const organizationUserOf = (alias: string) => sql.fragment`json_build_object(
  'id', ${sql.identifier([alias, 'id'])}, 'displayName', ${sql.identifier([alias, 'display_name'])},
  'emails', ARRAY(SELECT e->>'value' FROM jsonb_array_elements(${sql.identifier([alias, 'emails'])}) e))`;

const select = sql.fragment`
  SELECT m.id, m.organization_id AS "organizationId", m.user_id AS "userId", m.role, m.invited_at AS "invitedAt",
    m.joined_at AS "joinedAt", m.active, ${organizationUserOf('u')} AS "user", m.created_at AS "createdAt", m.updated_at AS "updatedAt"
  FROM organization_members m JOIN users u ON u.id = m.user_id`;

export function createOrganizationMemberQueries(db: CommonQueryMethods) {
  return {
    findMembers: (organizationId: string, page: PageRequest) =>
      selectPage(db, OrganizationMember, sql.fragment`${select} WHERE m.organization_id = ${organizationId}`, sql.fragment`m.created_at, m.id`, page),

    findMember: (organizationId: string, id: string) =>
      db.maybeOne(sql.type(OrganizationMember)`${select} WHERE m.organization_id = ${organizationId} AND m.id = ${id}`),

    /** Active owners other than `exceptMemberId` (an organization keeps at least one). */
    countOtherActiveOwners: (organizationId: string, exceptMemberId: string) =>
      db.oneFirst(sql.type(Count)`
        SELECT count(*)::int AS n FROM organization_members
        WHERE organization_id = ${organizationId} AND role = 'owner' AND active AND id <> ${exceptMemberId}`),

    /** Whether an active member of the organization has this email (listed or verified), case-insensitively. */
    // unscoped: users are reached only through this organization's memberships (operators, of the operators' environment).
    hasActiveMemberWithEmail: (organizationId: string, email: string) =>
      db.exists(sql.type(Id)`
        SELECT m.id FROM organization_members m JOIN users u ON u.id = m.user_id
        WHERE m.organization_id = ${organizationId} AND m.active AND (
          EXISTS (SELECT 1 FROM jsonb_array_elements(u.emails) e WHERE lower(e->>'value') = lower(${email}))
          OR EXISTS (SELECT 1 FROM jsonb_array_elements(u.verifications) v WHERE lower(v->>'email') = lower(${email})))`),

    setMemberActive: (organizationId: string, id: string, active: boolean) =>
      db.query(sql.unsafe`UPDATE organization_members SET active = ${active}, updated_at = now() WHERE organization_id = ${organizationId} AND id = ${id}`),

    deleteMember: (organizationId: string, id: string) =>
      db.query(sql.unsafe`DELETE FROM organization_members WHERE organization_id = ${organizationId} AND id = ${id}`),

    /** Makes the user an active member with `role` (joining now unless they had joined before). */
    joinMember: (organizationId: string, userId: string, role: string) =>
      db.oneFirst(sql.type(Id)`
        INSERT INTO organization_members (organization_id, user_id, role, active, joined_at)
        VALUES (${organizationId}, ${userId}, ${role}, true, now())
        ON CONFLICT (organization_id, user_id) DO UPDATE
          SET role = excluded.role, active = true, joined_at = coalesce(organization_members.joined_at, now()), updated_at = now()
        RETURNING id`),
  };
}
