// The directory's view of the provider's sessions (directory_sessions), written as the provider saves them.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { payloadUpsert, type PayloadRecord } from './payloads.ts';

export interface SessionUpsert {
  sessionUid: string;
  userId: string;
  factors: string[];
  clientIds: string[];
  expiresAt: Date | null;
  ip: string | null;
  userAgent: string | null;
}

export function createDirectorySessionWriteQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** `record`: the provider's Session record, saved in the same statement (one round trip, one commit). */
    upsert: (s: SessionUpsert, record?: { model: string; id: string; payload: PayloadRecord }) =>
      db.query(sql.unsafe`
        ${record ? sql.fragment`WITH saved AS (${payloadUpsert(environmentId, record.model, record.id, record.payload)} RETURNING 1)` : sql.fragment``}
        INSERT INTO directory_sessions (environment_id, user_id, session_uid, ip, user_agent, factors, client_ids, expires_at)
        SELECT ${environmentId}, u.id, ${s.sessionUid}, ${s.ip}, ${s.userAgent}, ${sql.array(s.factors, 'text')},
          ${sql.array(s.clientIds, 'text')}, ${s.expiresAt ? sql.timestamp(s.expiresAt) : null}
        FROM users u WHERE u.environment_id = ${environmentId} AND u.id::text = ${s.userId}
        ON CONFLICT (environment_id, session_uid) DO UPDATE SET user_id = EXCLUDED.user_id, factors = EXCLUDED.factors,
          client_ids = EXCLUDED.client_ids, expires_at = EXCLUDED.expires_at, last_active_at = now(),
          ip = coalesce(EXCLUDED.ip, directory_sessions.ip), user_agent = coalesce(EXCLUDED.user_agent, directory_sessions.user_agent)`),

    /** A use of the session (a token refresh through it) keeps it from idling out. */
    touch: (sessionUid: string) =>
      db.query(sql.unsafe`
        UPDATE directory_sessions SET last_active_at = now()
        WHERE environment_id = ${environmentId} AND session_uid = ${sessionUid} AND revoked_at IS NULL`),

    /** The directory's id of the provider's session `sessionUid` (null: none). */
    idOf: (sessionUid: string) =>
      db.maybeOneFirst(sql.type(z.object({ id: z.string() }))`
        SELECT id FROM directory_sessions WHERE environment_id = ${environmentId} AND session_uid = ${sessionUid}`),

    revoke: (sessionUid: string) =>
      db.query(sql.unsafe`
        UPDATE directory_sessions SET revoked_at = now()
        WHERE environment_id = ${environmentId} AND session_uid = ${sessionUid} AND revoked_at IS NULL`),
  };
}
