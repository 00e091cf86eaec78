// What the oidc-cleanup process removes or settles, across every environment, in bounded batches: each statement
// takes at most `limit` rows (SKIP LOCKED, so two instances or a retry never wait on each other) and is idempotent
// (a row already handled no longer matches).
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const DAY_MS = 86_400_000;

/** How long what has ended is kept before it is deleted (docs/incoming/oidc-maintenance.md). */
export const OIDC_RETENTION = {
  /** A password link, counted from its expiry. */
  passwordLinkMs: DAY_MS,
  /** A directory session, counted from its expiry or revocation (it shows `active: false` meanwhile). */
  sessionMs: 30 * DAY_MS,
  /** A sign-in email code, counted from its expiry (its sign-in, an interaction of an hour at most, has ended). */
  emailCodeMs: DAY_MS,
  /** A sign-up code superseded by a newer code of its user, counted from its expiry. */
  signUpCodeMs: DAY_MS,
  /** A retired signing key (private key included), counted from its retirement. */
  retiredKeyMs: 7 * DAY_MS,
} as const;

const Count = z.object({ count: z.number() });
const RetiredKey = z.object({
  id: z.uuid(),
  environmentId: z.uuid(),
  tenantId: z.uuid(),
  kid: z.string(),
  alg: z.string(),
  retiresAt: z.string(),
});
export type RetiredOidcKey = z.infer<typeof RetiredKey>;

const ms = (value: number) => sql.fragment`${value} * interval '1 millisecond'`;

// unscoped: the deployment's clean-up process works across every environment, by expiry.
export function createOidcCleanupQueries(db: CommonQueryMethods) {
  return {
    /** Deletes provider records (tokens, codes, sessions, interactions, grants…) whose expiry has passed. */
    deleteExpiredPayloads: (limit: number) =>
      db.oneFirst(sql.type(Count)`
        WITH due AS (
          SELECT environment_id, model, id FROM oidc_payloads
          WHERE expires_at <= now() ORDER BY expires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED),
        gone AS (
          DELETE FROM oidc_payloads p USING due
          WHERE p.environment_id = due.environment_id AND p.model = due.model AND p.id = due.id RETURNING 1)
        SELECT count(*)::int AS count FROM gone`),

    /** Deletes password links that expired more than a day ago (used or not). */
    deleteExpiredPasswordLinks: (limit: number) =>
      db.oneFirst(sql.type(Count)`
        WITH gone AS (
          DELETE FROM password_links WHERE id IN (
            SELECT id FROM password_links WHERE expires_at < now() - ${ms(OIDC_RETENTION.passwordLinkMs)}
            LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          RETURNING 1)
        SELECT count(*)::int AS count FROM gone`),

    /** Deletes directory sessions that expired or were revoked more than 30 days ago. */
    deleteEndedSessions: (limit: number) =>
      db.oneFirst(sql.type(Count)`
        WITH gone AS (
          DELETE FROM directory_sessions WHERE id IN (
            SELECT id FROM directory_sessions
            WHERE least(expires_at, revoked_at) < now() - ${ms(OIDC_RETENTION.sessionMs)}
            LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          RETURNING 1)
        SELECT count(*)::int AS count FROM gone`),

    /** Deletes sign-in email codes (used or not) that expired more than a day ago. */
    deleteExpiredEmailCodes: (limit: number) =>
      db.oneFirst(sql.type(Count)`
        WITH gone AS (
          DELETE FROM sign_in_email_codes WHERE id IN (
            SELECT id FROM sign_in_email_codes WHERE expires_at < now() - ${ms(OIDC_RETENTION.emailCodeMs)}
            LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          RETURNING 1)
        SELECT count(*)::int AS count FROM gone`),

    /**
     * Deletes sign-up codes that expired more than a day ago and are superseded by a newer code of their user. A
     * user's latest code stays, expired or not: it is what marks the sign-up pending (sign-in refuses the password
     * until the email is verified; a new sign-up with the email takes the account over), and goes with verification.
     */
    deleteSupersededSignUpCodes: (limit: number) =>
      db.oneFirst(sql.type(Count)`
        WITH gone AS (
          DELETE FROM sign_up_codes WHERE id IN (
            SELECT c.id FROM sign_up_codes c
            WHERE c.expires_at < now() - ${ms(OIDC_RETENTION.signUpCodeMs)}
              AND EXISTS (
                SELECT 1 FROM sign_up_codes n
                WHERE n.user_id = c.user_id AND n.environment_id = c.environment_id AND (n.created_at, n.id) > (c.created_at, c.id))
            LIMIT ${limit} FOR UPDATE OF c SKIP LOCKED)
          RETURNING 1)
        SELECT count(*)::int AS count FROM gone`),

    /** Marks retiring signing keys whose retires_at has passed `retired` (they leave the JWKS); returns them. */
    retireDueKeys: async (limit: number) => [
      ...(await db.any(sql.type(RetiredKey)`
        WITH due AS (
          SELECT id, retires_at FROM oidc_signing_keys WHERE status = 'retiring' AND retires_at <= now()
          ORDER BY retires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        UPDATE oidc_signing_keys k SET status = 'retired', retires_at = NULL, updated_at = now()
        FROM due, environments v
        WHERE k.id = due.id AND v.id = k.environment_id
        RETURNING k.id, k.environment_id AS "environmentId", v.tenant_id AS "tenantId", k.kid, k.alg,
          to_char(due.retires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "retiresAt"`)),
    ],

    /** Deletes signing keys retired more than the grace period ago, with their private key. */
    deleteRetiredKeys: (limit: number) =>
      db.oneFirst(sql.type(Count)`
        WITH gone AS (
          DELETE FROM oidc_signing_keys WHERE id IN (
            SELECT id FROM oidc_signing_keys WHERE status = 'retired' AND updated_at < now() - ${ms(OIDC_RETENTION.retiredKeyMs)}
            LIMIT ${limit} FOR UPDATE SKIP LOCKED)
          RETURNING 1)
        SELECT count(*)::int AS count FROM gone`),
  };
}
