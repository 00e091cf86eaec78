// A directory user's sign-in sessions (directory_sessions) and their revocation: the provider's Session record and
// the tokens of the grants it holds are deleted in the revoking transaction.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { DirectorySession, ProviderSession } from './rows.ts';

const columnsFor = (idleSeconds: number | null) => sql.fragment`
  id, user_id AS "userId", client_ids AS "clientIds", ip, user_agent AS "userAgent", factors, created_at AS "createdAt",
  last_active_at AS "lastActiveAt", expires_at AS "expiresAt", revoked_at AS "revokedAt",
  (revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
    ${idleSeconds === null ? sql.fragment`` : sql.fragment`AND last_active_at >= now() - make_interval(secs => ${idleSeconds})`}) AS active`;
// What a revocation returns: revoked, so never active whatever the idle lifetime.
const columns = columnsFor(null);

const Locked = DirectorySession.extend({ sessionUid: z.string() });
export type LockedSession = z.infer<typeof Locked>;

/** Queries of one environment's directory sessions: every statement is bound to `environmentId`. */
export function createDirectorySessionQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** The user's sessions, newest first; one idle longer than `idleSeconds` is not active (the provider no longer reuses it). */
    listOfUser: async (userId: string, idleSeconds: number) => [
      ...(await db.any(sql.type(DirectorySession)`
        SELECT ${columnsFor(idleSeconds)} FROM directory_sessions WHERE environment_id = ${environmentId} AND user_id = ${userId}
        ORDER BY created_at DESC, id`)),
    ],

    /** The user's sessions not yet revoked (one when `sessionId` is given), locked for their revocation. */
    lockUnrevoked: async (userId: string, sessionId?: string) => [
      ...(await db.any(sql.type(Locked)`
        SELECT ${columns}, session_uid AS "sessionUid" FROM directory_sessions
        WHERE environment_id = ${environmentId} AND user_id = ${userId} AND revoked_at IS NULL
          ${sessionId === undefined ? sql.fragment`` : sql.fragment`AND id = ${sessionId}`}
        ORDER BY created_at, id FOR UPDATE`)),
    ],

    exists: async (userId: string, sessionId: string) =>
      (await db.maybeOneFirst(sql.type(z.object({ one: z.number() }))`
        SELECT 1 AS one FROM directory_sessions WHERE environment_id = ${environmentId} AND user_id = ${userId} AND id = ${sessionId}`)) !== null,

    markRevoked: async (ids: string[]) => [
      ...(await db.any(sql.type(DirectorySession)`
        UPDATE directory_sessions SET revoked_at = now()
        WHERE environment_id = ${environmentId} AND id = ANY(${sql.array(ids, 'uuid')})
        RETURNING ${columns}`)),
    ],

    /** The provider's Session record of a session uid, or null once it has expired or been deleted. */
    providerSession: (sessionUid: string) =>
      db.maybeOneFirst(sql.type(z.object({ payload: ProviderSession }))`
        SELECT payload FROM oidc_payloads WHERE environment_id = ${environmentId} AND model = 'Session' AND uid = ${sessionUid}`),

    /**
     * Deletes the provider's Session record and the codes and tokens issued through it under the grants it holds. A
     * grant may serve other sessions too (a remembered consent): their tokens, and the grants (the consents), stay.
     */
    deleteProviderRecords: (sessionUid: string, grantIds: string[]) =>
      db.query(sql.unsafe`
        DELETE FROM oidc_payloads WHERE environment_id = ${environmentId} AND (
          (model = 'Session' AND uid = ${sessionUid}) OR
          (grant_id = ANY(${sql.array(grantIds, 'text')}) AND model IN ('AccessToken', 'RefreshToken', 'AuthorizationCode')
            AND coalesce(payload->>'sessionUid', ${sessionUid}) = ${sessionUid}))`),
  };
}
