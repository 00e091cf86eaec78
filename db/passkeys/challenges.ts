// WebAuthn challenges of one environment: every statement is bound to `environmentId`. A challenge is consumed by a
// single UPDATE that only matches it unconsumed and unexpired, so of two instances (or a retry after a crash) that
// present it, one alone gets it.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { Challenge, type ChallengePurpose } from './rows.ts';

const columns = sql.fragment`id, user_id AS "userId", purpose, challenge, expires_at AS "expiresAt"`;

const Found = z.object({ found: z.boolean() });

/** How many expired challenges an insert deletes at most, so they never pile up and never cost much. */
const PURGE_BATCH = 100;

export function createChallengeQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** Stores a challenge for `ttlSeconds`, after deleting a batch of this environment's expired ones. */
    insert: async (userId: string | null, purpose: ChallengePurpose, challenge: string, ttlSeconds: number) => {
      await db.query(sql.unsafe`
        DELETE FROM webauthn_challenges WHERE id IN (
          SELECT id FROM webauthn_challenges WHERE environment_id = ${environmentId} AND expires_at < now()
          LIMIT ${PURGE_BATCH} FOR UPDATE SKIP LOCKED)`);
      return db.one(sql.type(Challenge)`
        INSERT INTO webauthn_challenges (environment_id, user_id, purpose, challenge, expires_at)
        VALUES (${environmentId}, ${userId}, ${purpose}, ${challenge}, now() + make_interval(secs => ${ttlSeconds}))
        RETURNING ${columns}`);
    },

    /**
     * Consumes the challenge if it is this environment's, of `purpose`, unused and unexpired (and, for a registration,
     * the user's); null otherwise.
     */
    consume: (id: string, purpose: ChallengePurpose, userId?: string) =>
      db.maybeOne(sql.type(Challenge)`
        UPDATE webauthn_challenges SET consumed_at = now()
        WHERE environment_id = ${environmentId} AND id = ${id} AND purpose = ${purpose}
          ${userId === undefined ? sql.fragment`` : sql.fragment`AND user_id = ${userId}`}
          AND consumed_at IS NULL AND expires_at > now()
        RETURNING ${columns}`),

    /** After a failed `consume`: whether the challenge exists here for `purpose` (and the user) at all (then it was used or expired). */
    exists: async (id: string, purpose: ChallengePurpose, userId?: string) =>
      (await db.maybeOne(sql.type(Found)`
        SELECT true AS found FROM webauthn_challenges
        WHERE environment_id = ${environmentId} AND id = ${id} AND purpose = ${purpose}
          ${userId === undefined ? sql.fragment`` : sql.fragment`AND user_id = ${userId}`}`)) !== null,
  };
}
