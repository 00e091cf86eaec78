// Opening a portal link and the sessions it starts. A link is found by the hash of its token and a session by the hash
// of its cookie: neither request has a caller yet, so these statements are bound to the row the secret names.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { PortalLink, PortalSession } from './rows.ts';
import { LINK_COLUMNS } from './queries.ts';

const SESSION_COLUMNS = sql.fragment`
  s.id, s.link_id AS "linkId", s.organization_id AS "organizationId", s.tenant_id AS "tenantId", s.environment_id AS "environmentId",
  l.intent, l.return_url AS "returnUrl", s.expires_at AS "expiresAt",
  (s.expires_at > now() AND l.revoked_at IS NULL) AS active, s.sso_test AS "ssoTest"`;

export function createPortalSessionQueries(db: CommonQueryMethods) {
  return {
    // unscoped: opening a link has no caller; the link is the one whose token hash the visitor presented.
    findLinkByHash: (hash: Buffer) =>
      db.maybeOne(sql.type(PortalLink)`SELECT ${LINK_COLUMNS} FROM portal_links l WHERE l.token_hash = ${sql.binary(hash)} FOR UPDATE`),

    // unscoped: the link was found by its token hash in this transaction; marking it used is what single use means.
    markOpened: (linkId: string) =>
      db.one(sql.type(PortalLink)`
        WITH u AS (UPDATE portal_links SET opened_at = now(), updated_at = now() WHERE id = ${linkId} RETURNING *)
        SELECT ${LINK_COLUMNS} FROM u l`),

    /** The session of an opened link (one per link). */
    insert: async (link: PortalLink, cookieHash: Buffer) =>
      db.one(sql.type(z.object({ id: z.uuid(), expiresAt: z.string() }))`
        INSERT INTO portal_sessions (link_id, organization_id, tenant_id, environment_id, cookie_hash, expires_at)
        VALUES (${link.id}, ${link.organizationId}, ${link.tenantId}, ${link.environmentId}, ${sql.binary(cookieHash)},
          now() + make_interval(secs => ${link.sessionLifetimeSeconds}))
        RETURNING id, to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "expiresAt"`),

    // unscoped: a portal request has no caller but its cookie; the session is the one whose cookie hash it presented.
    findByCookieHash: (hash: Buffer) =>
      db.maybeOne(sql.type(PortalSession)`
        SELECT ${SESSION_COLUMNS} FROM portal_sessions s JOIN portal_links l ON l.id = s.link_id WHERE s.cookie_hash = ${sql.binary(hash)}`),

    // unscoped: the session was found by its cookie hash in this request; the round trip is its own.
    saveSsoTest: (sessionId: string, trip: Record<string, string> | null) =>
      db.query(sql.unsafe`UPDATE portal_sessions SET sso_test = ${trip ? sql.jsonb(trip) : null} WHERE id = ${sessionId}`),
  };
}

const TestClient = z.object({ clientId: z.string(), secretEncrypted: z.string() });

/** The OIDC client a portal's "test connection" signs in with, of one environment. */
export function createPortalTestClientQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    find: () =>
      db.maybeOne(sql.type(TestClient)`
        SELECT client_id AS "clientId", secret_encrypted AS "secretEncrypted" FROM portal_test_clients WHERE environment_id = ${environmentId}`),
    save: (tenantId: string, clientId: string, secretEncrypted: string) =>
      db.query(sql.unsafe`
        INSERT INTO portal_test_clients (environment_id, tenant_id, client_id, secret_encrypted) VALUES (${environmentId}, ${tenantId}, ${clientId}, ${secretEncrypted})
        ON CONFLICT (environment_id) DO UPDATE SET client_id = EXCLUDED.client_id, secret_encrypted = EXCLUDED.secret_encrypted, created_at = now()`),
  };
}
