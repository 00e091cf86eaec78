// Connected apps of an environment (oidc_client_grants, written at consent) and their revocation: the grant is
// marked revoked and every provider record issued under it (the Grant, codes, access and refresh tokens) is deleted
// in the same statement's transaction, so introspection on any instance answers inactive at once.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { selectPage, type PageRequest } from '../../shared/pages.ts';
import { OidcClientGrant } from './rows.ts';

const columns = sql.fragment`
  g.id, g.environment_id AS "environmentId", g.client_id AS "clientId", g.user_id AS "userId",
  coalesce(u.external_id, u.id::text) AS "userExternalId", c.name AS "clientName", c.client_uri AS "clientUri",
  c.logo_uri AS "logoUri", g.scopes, g.consented_at AS "consentedAt", g.expires_at AS "expiresAt",
  g.last_used_at AS "lastUsedAt", g.revoked_at AS "revokedAt", g.revoked_at IS NOT NULL AS revoked,
  g.created_at AS "createdAt", g.updated_at AS "updatedAt"`;

export interface GrantFilter {
  clientId?: string | undefined;
  userId?: string | undefined;
}

const Revoked = z.object({ id: z.uuid(), grantId: z.string().nullable() });

/** Queries of one environment's connected apps: every statement is bound to `environmentId`. */
export function createConnectedAppQueries(db: CommonQueryMethods, environmentId: string) {
  const from = sql.fragment`
    FROM oidc_client_grants g
    JOIN users u ON u.id = g.user_id AND u.environment_id = g.environment_id
    LEFT JOIN oidc_clients c ON c.environment_id = g.environment_id AND c.client_id = g.client_id`;
  return {
    findPage: (filter: GrantFilter, page: PageRequest) => {
      const where = [sql.fragment`g.environment_id = ${environmentId}`];
      if (filter.clientId !== undefined) where.push(sql.fragment`g.client_id = ${filter.clientId}`);
      if (filter.userId !== undefined) where.push(sql.fragment`g.user_id = ${filter.userId}`);
      return selectPage(
        db,
        OidcClientGrant,
        sql.fragment`SELECT ${columns} ${from} WHERE ${sql.join(where, sql.fragment` AND `)}`,
        sql.fragment`g.created_at, g.id`,
        page,
      );
    },

    find: (clientId: string, userId: string) =>
      db.maybeOne(sql.type(OidcClientGrant)`
        SELECT ${columns} ${from} WHERE g.environment_id = ${environmentId} AND g.client_id = ${clientId} AND g.user_id = ${userId}`),

    /** Marks the user's grant of the client revoked (once) and returns it, or null when there is none to revoke. */
    revoke: (clientId: string, userId: string) =>
      db.maybeOne(sql.type(Revoked)`
        UPDATE oidc_client_grants SET revoked_at = now(), updated_at = now()
        WHERE environment_id = ${environmentId} AND client_id = ${clientId} AND user_id = ${userId} AND revoked_at IS NULL
        RETURNING id, grant_id AS "grantId"`),

    /**
     * Marks the user's grant of the client used now (a token was issued under it), unless it was marked less than
     * `everyMs` ago or is revoked. Usage bookkeeping: no audit entry, updated_at unchanged.
     */
    touch: (clientId: string, userId: string, everyMs: number) =>
      db.query(sql.unsafe`
        UPDATE oidc_client_grants SET last_used_at = now()
        WHERE environment_id = ${environmentId} AND client_id = ${clientId} AND user_id = ${userId} AND revoked_at IS NULL
          AND (last_used_at IS NULL OR last_used_at <= now() - ${everyMs} * interval '1 millisecond')`),

    /**
     * Deletes every provider record of the user's grants of the client: each Grant (the one the consent row names and
     * any other, from another browser) with the codes and tokens issued under it.
     */
    deleteGrantRecords: (clientId: string, userId: string, grantId: string | null) =>
      db.query(sql.unsafe`
        DELETE FROM oidc_payloads WHERE environment_id = ${environmentId} AND grant_id IN (
          SELECT id FROM oidc_payloads
          WHERE environment_id = ${environmentId} AND model = 'Grant' AND client_id = ${clientId} AND account_id = ${userId}
          UNION ALL SELECT ${grantId}::text)`),
  };
}
