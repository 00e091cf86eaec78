// Shared by the factor benches: the bench's users (inserted in bulk: the figures are about verifying, not signing up),
// `inFlight` async workers for a time, and a synchronous loop for a time (the raw crypto baselines).
import { sql, type DatabasePool } from 'slonik';

/** `count` active directory users of the environment; their ids, in order. */
export async function insertUsers(pool: DatabasePool, environmentId: string, prefix: string, count: number): Promise<string[]> {
  const ids = await pool.anyFirst(sql.unsafe`
    INSERT INTO users (environment_id, user_name, display_name)
    SELECT ${environmentId}, ${prefix} || '-' || g, 'Bench ' || g FROM generate_series(1, ${count}) g
    ORDER BY g RETURNING id`);
  return ids as string[];
}

/**
 * Runs `work(i)` with i = 0, 1, 2… from `inFlight` workers for `seconds`, or until `work` answers false (out of
 * inputs). Answers the completed calls per second and the first failure (a thrown error counts as one).
 */
export async function concurrently(inFlight: number, seconds: number, work: (i: number) => Promise<boolean | void>) {
  let next = 0;
  let done = 0;
  let failures = 0;
  let firstFailure: string | undefined;
  let exhausted = false;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (!exhausted && performance.now() < until) {
        try {
          if ((await work(next++)) === false) exhausted = true;
          else done++;
        } catch (error) {
          failures++;
          firstFailure ??= String(error);
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { perSecond: Math.round(done / elapsed), done, failures, firstFailure, seconds: Math.round(elapsed * 100) / 100 };
}

/** Calls `work(i)` synchronously, back to back, for `seconds`: calls per second. */
export function loopFor(seconds: number, work: (i: number) => void) {
  const started = performance.now();
  const until = started + seconds * 1000;
  let i = 0;
  while (i % 64 !== 0 || performance.now() < until) work(i++);
  return Math.round(i / ((performance.now() - started) / 1000));
}
