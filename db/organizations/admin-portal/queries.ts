// Admin Portal links of an organization. Only the hash of a link's token is stored; what leaves is a PortalLink.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { PortalLink, type PortalIntent } from './rows.ts';
import { selectPage, type PageRequest } from '../../shared/pages.ts';

export const LINK_COLUMNS = sql.fragment`
  l.id, l.organization_id AS "organizationId", l.tenant_id AS "tenantId", l.environment_id AS "environmentId", l.intent,
  l.return_url AS "returnUrl", l.prefix, l.hint,
  CASE WHEN l.revoked_at IS NOT NULL THEN 'revoked' WHEN l.opened_at IS NOT NULL THEN 'opened'
    WHEN l.expires_at <= now() THEN 'expired' ELSE 'pending' END AS status,
  l.expires_at AS "expiresAt", l.session_lifetime_seconds AS "sessionLifetimeSeconds", l.opened_at AS "openedAt",
  l.revoked_at AS "revokedAt", l.created_at AS "createdAt", l.updated_at AS "updatedAt"`;

export interface NewPortalLink {
  tenantId: string;
  environmentId: string | null;
  intent: PortalIntent;
  returnUrl: string | null;
  prefix: string;
  hint: string;
  hash: Buffer;
  expiresInSeconds: number;
  sessionLifetimeSeconds: number;
}

/**
 * Queries of one organization's portal links: every statement is bound to `organizationId`, and to the tenants still
 * linked to it (a link whose tenant left the organization is no longer the organization's to see or revoke).
 */
export function createPortalLinkQueries(db: CommonQueryMethods, organizationId: string) {
  const linked = sql.fragment`(SELECT ot.tenant_id FROM organization_tenants ot WHERE ot.organization_id = ${organizationId})`;
  const byId = (id: string) =>
    db.one(
      sql.type(
        PortalLink,
      )`SELECT ${LINK_COLUMNS} FROM portal_links l WHERE l.organization_id = ${organizationId} AND l.tenant_id IN ${linked} AND l.id = ${id}`,
    );
  return {
    find: (id: string, options: { lock?: boolean } = {}) =>
      db.maybeOne(sql.type(PortalLink)`
        SELECT ${LINK_COLUMNS} FROM portal_links l WHERE l.organization_id = ${organizationId} AND l.tenant_id IN ${linked} AND l.id = ${id}
        ${options.lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`),

    findPage: (page: PageRequest) =>
      selectPage(
        db,
        PortalLink,
        sql.fragment`SELECT ${LINK_COLUMNS} FROM portal_links l WHERE l.organization_id = ${organizationId} AND l.tenant_id IN ${linked}`,
        sql.fragment`l.created_at, l.id`,
        page,
      ),

    insert: async (l: NewPortalLink) => {
      const id = await db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO portal_links (organization_id, tenant_id, environment_id, intent, return_url, prefix, hint, token_hash, expires_at,
          session_lifetime_seconds)
        VALUES (${organizationId}, ${l.tenantId}, ${l.environmentId}, ${l.intent}, ${l.returnUrl}, ${l.prefix}, ${l.hint},
          ${sql.binary(l.hash)}, now() + make_interval(secs => ${l.expiresInSeconds}), ${l.sessionLifetimeSeconds})
        RETURNING id`);
      return byId(id);
    },

    revoke: async (id: string) => {
      await db.query(
        sql.unsafe`UPDATE portal_links l SET revoked_at = now(), updated_at = now() WHERE l.organization_id = ${organizationId} AND l.tenant_id IN ${linked} AND l.id = ${id} AND l.revoked_at IS NULL`,
      );
      return byId(id);
    },
  };
}
