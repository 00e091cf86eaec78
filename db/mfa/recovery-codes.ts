// Users' recovery codes (0029): only the SHA-256 of each normalised code (lib/mfa/recovery-codes.ts). A code is used
// once: the update that marks it used is the check.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { uuid } from '../shared/rows.ts';

const Id = z.object({ id: uuid });
const Count = z.object({ n: z.number() });

/** Recovery codes of one environment: every statement is bound to `environmentId`. */
export function createRecoveryCodeQueries(db: CommonQueryMethods, environmentId: string) {
  const removeAll = (userId: string) =>
    db.query(sql.unsafe`DELETE FROM user_recovery_codes WHERE environment_id = ${environmentId} AND user_id = ${userId}`).then((r) => r.rowCount);
  return {
    /** Replaces the user's codes with these hashes. */
    replace: async (userId: string, hashes: Buffer[]) => {
      await removeAll(userId);
      await db.query(sql.unsafe`
        INSERT INTO user_recovery_codes (user_id, environment_id, code_hash)
        SELECT ${userId}, ${environmentId}, decode(h, 'hex') FROM unnest(${sql.array(
          hashes.map((h) => h.toString('hex')),
          'text',
        )}) AS h`);
    },

    /** Marks the unused code with this hash used: false when there is none (unknown, or used already). */
    use: async (userId: string, hash: Buffer) =>
      (await db.maybeOneFirst(sql.type(Id)`
        UPDATE user_recovery_codes SET used_at = now()
        WHERE environment_id = ${environmentId} AND user_id = ${userId} AND code_hash = ${sql.binary(hash)} AND used_at IS NULL
        RETURNING id`)) !== null,

    /** Whether the user has a used code with this hash (a second use is a replay, not a typo). */
    wasUsed: (userId: string, hash: Buffer) =>
      db.exists(sql.type(Id)`
        SELECT id FROM user_recovery_codes
        WHERE environment_id = ${environmentId} AND user_id = ${userId} AND code_hash = ${sql.binary(hash)} AND used_at IS NOT NULL`),

    /** How many unused codes the user has. */
    remaining: (userId: string) =>
      db.oneFirst(sql.type(Count)`
        SELECT count(*)::int AS n FROM user_recovery_codes WHERE environment_id = ${environmentId} AND user_id = ${userId} AND used_at IS NULL`),

    /** Deletes every code of the user: how many there were. */
    removeAll,
  };
}
