// Organization invitations. `status` reads `expired` as soon as a pending invitation is due, before the
// expiry process has marked it (defence in depth); token and code are looked up by their SHA-256 hashes.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { OrganizationInvitation } from '../organizations/rows.ts';
import { organizationUserOf } from '../members/queries.ts';
import { selectPage, type PageRequest } from '../../shared/pages.ts';

const Id = z.object({ id: z.uuid() });
const Ref = z.object({ id: z.uuid(), organizationId: z.uuid(), validFrom: z.string().nullable() });

const select = sql.fragment`
  SELECT i.id, i.organization_id AS "organizationId", i.email, i.role, i.invited_by AS "invitedBy",
    NULL::text AS token, NULL::text AS "invitationCode", i.expires_at AS "expiresAt", i.accepted_at AS "acceptedAt",
    CASE WHEN i.status = 'pending' AND i.expires_at <= now() THEN 'expired' ELSE i.status END AS status,
    i.message, i.created_at AS "createdAt", i.updated_at AS "updatedAt", i.tenant_access::text[] AS "tenantAccess",
    CASE WHEN u.id IS NULL THEN NULL ELSE ${organizationUserOf('u')} END AS inviter
  FROM organization_invitations i LEFT JOIN users u ON u.id = i.inviter_user_id`;

export interface NewInvitation {
  organizationId: string;
  email: string;
  role: string;
  message: string | null;
  tenantAccess: string[];
  invitedBy: string | null;
  inviterUserId: string | null;
  tokenHash: Buffer;
  codeHash: Buffer;
  validFrom: string | null;
  expiresAt: string;
}

export function createOrganizationInvitationQueries(db: CommonQueryMethods) {
  const byId = (id: string) => db.one(sql.type(OrganizationInvitation)`${select} WHERE i.id = ${id}`);
  return {
    findInvitationById: (id: string) => byId(id),

    findInvitation: (organizationId: string, id: string) =>
      db.maybeOne(sql.type(OrganizationInvitation)`${select} WHERE i.organization_id = ${organizationId} AND i.id = ${id}`),

    findInvitations: (organizationId: string, page: PageRequest) =>
      selectPage(db, OrganizationInvitation, sql.fragment`${select} WHERE i.organization_id = ${organizationId}`, sql.fragment`i.created_at DESC, i.id`, page),

    /** Locks the row and returns it, so status checks and the change that follows see the same state. */
    lockInvitation: async (organizationId: string, id: string) => {
      await db.query(sql.unsafe`SELECT 1 FROM organization_invitations WHERE organization_id = ${organizationId} AND id = ${id} FOR UPDATE`);
      return byId(id);
    },

    findByTokenHash: (hash: Buffer) =>
      db.maybeOne(sql.type(Ref)`
        SELECT id, organization_id AS "organizationId", valid_from AS "validFrom" FROM organization_invitations WHERE token_hash = ${sql.binary(hash)}`),

    /** Codes are short: the newest invitation holding one wins (a collision needs two 50-bit codes to match). */
    findByCodeHash: (hash: Buffer) =>
      db.maybeOne(sql.type(Ref)`
        SELECT id, organization_id AS "organizationId", valid_from AS "validFrom" FROM organization_invitations
        WHERE code_hash = ${sql.binary(hash)} ORDER BY created_at DESC LIMIT 1`),

    /** A pending, not yet due invitation of this email in the organization. */
    hasPendingForEmail: (organizationId: string, email: string) =>
      db.exists(sql.type(Id)`
        SELECT id FROM organization_invitations
        WHERE organization_id = ${organizationId} AND lower(email) = lower(${email}) AND status = 'pending' AND expires_at > now()`),

    pendingIdsOfOrganization: async (organizationId: string) => [
      ...(await db.anyFirst(sql.type(Id)`SELECT id FROM organization_invitations WHERE organization_id = ${organizationId} AND status = 'pending'`)),
    ],

    insertInvitation: (i: NewInvitation) =>
      db.oneFirst(sql.type(Id)`
        INSERT INTO organization_invitations (organization_id, email, role, message, tenant_access, invited_by, inviter_user_id,
          token_hash, code_hash, valid_from, expires_at)
        VALUES (${i.organizationId}, ${i.email}, ${i.role}, ${i.message}, ${sql.array(i.tenantAccess, 'uuid')}, ${i.invitedBy},
          ${i.inviterUserId}, ${sql.binary(i.tokenHash)}, ${sql.binary(i.codeHash)}, ${i.validFrom}, ${i.expiresAt})
        RETURNING id`),

    /** New token, code and expiry: the previous token and code stop working. */
    replaceSecrets: (organizationId: string, id: string, tokenHash: Buffer, codeHash: Buffer, expiresAt: string) =>
      db.query(sql.unsafe`
        UPDATE organization_invitations SET token_hash = ${sql.binary(tokenHash)}, code_hash = ${sql.binary(codeHash)},
          expires_at = ${expiresAt}, updated_at = now() WHERE organization_id = ${organizationId} AND id = ${id}`),

    markAccepted: (organizationId: string, id: string, userId: string) =>
      db.query(sql.unsafe`
        UPDATE organization_invitations SET status = 'accepted', accepted_at = now(), accepted_by = ${userId}, updated_at = now()
        WHERE organization_id = ${organizationId} AND id = ${id}`),

    markRevoked: (organizationId: string, id: string) =>
      db.query(sql.unsafe`
        UPDATE organization_invitations SET status = 'revoked', revoked_at = now(), updated_at = now()
        WHERE organization_id = ${organizationId} AND id = ${id}`),

    /**
     * Marks the invitation expired if it is still pending and due. Returns what it found: `expired` (it did),
     * `settled` (no longer pending, or gone), or `pending` with the expiry it has now (not due yet).
     */
    // unscoped: the invitation-expiry process acts on the invitation it was started for, by id (its input names no organization).
    expireIfDue: async (id: string): Promise<{ outcome: 'expired' | 'settled' } | { outcome: 'pending'; expiresAt: number }> => {
      const row = await db.maybeOne(sql.type(z.object({ status: z.string(), expiresAt: z.string(), due: z.boolean() }))`
        SELECT status, expires_at AS "expiresAt", expires_at <= now() AS due FROM organization_invitations WHERE id = ${id} FOR UPDATE`);
      if (!row || row.status !== 'pending') return { outcome: 'settled' };
      if (!row.due) return { outcome: 'pending', expiresAt: Date.parse(row.expiresAt) };
      await db.query(sql.unsafe`
        UPDATE organization_invitations SET status = 'expired', expired_at = now(), updated_at = now() WHERE id = ${id}`);
      return { outcome: 'expired' };
    },
  };
}
