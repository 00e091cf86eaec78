// Issuing and consuming ceremony challenges. A challenge is consumed before its response is judged, whatever the
// outcome: a response is never verified twice against one challenge, on this instance or another.
import type { CommonQueryMethods } from 'slonik';
import { createChallengeQueries } from '../../db/passkeys/challenges.ts';
import type { Challenge, ChallengePurpose } from '../../db/passkeys/rows.ts';

/** How long a ceremony may take: the options' `timeout` and the challenge's lifetime. */
export const CHALLENGE_TTL_SECONDS = 300;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const issueChallenge = (db: CommonQueryMethods, environmentId: string, userId: string | null, purpose: ChallengePurpose, challenge: string) =>
  createChallengeQueries(db, environmentId).insert(userId, purpose, challenge, CHALLENGE_TTL_SECONDS);

export type Consumed = { ok: true; challenge: Challenge } | { ok: false; reason: 'expired' | 'challenge_mismatch' };

/**
 * Consumes the challenge `challengeId` of this environment for `purpose` (and `userId`, when given): `expired` when it
 * was used or has expired, `challenge_mismatch` when there is no such challenge here (another environment's, another
 * purpose's or another user's).
 */
export async function consumeChallenge(
  db: CommonQueryMethods,
  environmentId: string,
  challengeId: string,
  purpose: ChallengePurpose,
  userId?: string,
): Promise<Consumed> {
  if (typeof challengeId !== 'string' || !UUID.test(challengeId)) return { ok: false, reason: 'challenge_mismatch' };
  const queries = createChallengeQueries(db, environmentId);
  const challenge = await queries.consume(challengeId, purpose, userId);
  if (challenge) return { ok: true, challenge };
  return { ok: false, reason: (await queries.exists(challengeId, purpose, userId)) ? 'expired' : 'challenge_mismatch' };
}
