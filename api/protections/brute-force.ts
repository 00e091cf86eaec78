// The brute-force policy (issue 19): failed passwords counted per lower-cased identifier (known user or not, so the
// answer reveals nothing) and per client IP address, in Postgres (every instance counts into the same rows). At
// `maxFailures` a key is locked for `lockoutMinutes`; with `progressiveDelay` each failure below that makes the next
// attempt of the key wait 1 s, 2 s, 4 s … (30 s at most). A locked or waiting key is refused with 429 and Retry-After
// before its password is looked at (no argon2 cost), the same page for every identifier. A good password clears the
// identifier's count. Password sign-ins only: a password reset stays open to a locked user.
import type { DatabasePool } from 'slonik';
import { bruteForceChecks, createBruteForceQueries, type Counted, type FailureKey, type Held } from '../../db/protections/brute-force-queries.ts';
import { createSignInQueries } from '../../db/oidc/sign-in/queries.ts';
import { fillText } from '../oidc/pages/i18n/index.ts';
import { recordDecision } from './decisions.ts';
import type { Attempt, ProtectionHook, Ruling } from './pipeline.ts';

const policy = 'brute_force' as const;

/** The policy's settings when it applies to the attempt, else null (no query). */
const rulesOf = (attempt: Attempt) => {
  const settings = attempt.protections.brute_force;
  return settings?.enabled && attempt.flow === 'sign_in' ? settings : null;
};

/** The identifier's key (lower-cased, as the pages' lookup compares it) and the IP address's. */
const keysOf = (attempt: Attempt): FailureKey[] => {
  const login = attempt.login?.trim().toLowerCase().slice(0, 256) ?? '';
  const ip = attempt.origin.ip?.slice(0, 256) ?? '';
  return [...(login ? [{ kind: 'identifier' as const, key: login }] : []), ...(ip ? [{ kind: 'ip' as const, key: ip }] : [])];
};

const decision = (attempt: Attempt, reason: string) => ({
  environmentId: attempt.environmentId,
  tenantId: attempt.tenantId,
  policy,
  flow: attempt.flow,
  outcome: 'blocked' as const,
  reason,
  login: attempt.login,
  origin: attempt.origin,
});

export function createBruteForce(pool: DatabasePool): ProtectionHook {
  /** The refusal of an attempt whose identifier or IP address is locked or must still wait. */
  function refuse(attempt: Attempt, held: readonly Held[]): Ruling {
    const lockedSeconds = Math.max(0, ...held.map((h) => h.lockedSeconds));
    const locked = lockedSeconds > 0;
    const retryAfterSeconds = Math.max(1, locked ? lockedSeconds : Math.max(...held.map((h) => h.delaySeconds)));
    const reason = locked ? 'locked_out' : 'progressive_delay';
    const keys = held.filter((h) => (locked ? h.lockedSeconds > 0 : h.delaySeconds > 0)).map((h) => h.kind);
    const minutes = String(Math.ceil(retryAfterSeconds / 60));
    return {
      refusal: {
        kind: 'deny',
        policy,
        reason,
        status: 429,
        retryAfterSeconds,
        text: (t) => (locked ? fillText(t.bruteForceLockedOut, { minutes }) : fillText(t.bruteForceSlowDown, { seconds: String(retryAfterSeconds) })),
      },
      record: () => recordDecision(pool, { ...decision(attempt, reason), userId: attempt.userId, details: { keys, retryAfterSeconds } }),
    };
  }

  /** A key this failure locked: the identifier's user noted, the lockout's event and threat. */
  async function lockedOut(attempt: Attempt, counted: Counted) {
    const queries = createBruteForceQueries(pool, attempt.environmentId);
    let userId: string | null = null;
    if (counted.kind === 'identifier') {
      userId = (await createSignInQueries(pool, attempt.environmentId).findByLogin(counted.key))?.id ?? null;
      if (userId) await queries.setUser(counted, userId);
    }
    const subject = counted.kind === 'ip' ? `IP address ${counted.key}` : `identifier ${counted.key}`;
    await recordDecision(pool, {
      ...decision(attempt, 'locked_out'),
      userId,
      threat: { severity: counted.kind === 'ip' ? 'high' : 'medium', summary: `Sign-ins locked out after repeated failed passwords (${subject})` },
      details: { keys: [counted.kind], failures: counted.failures, lockedUntil: counted.lockedUntil },
    });
  }

  return {
    policy,
    async before(attempt, db) {
      if (!rulesOf(attempt)) return null;
      const keys = keysOf(attempt);
      if (keys.length === 0) return null;
      const held = await bruteForceChecks(db, attempt.environmentId).held(keys);
      return held.length > 0 ? refuse(attempt, held) : null;
    },
    async failed(attempt) {
      const rules = rulesOf(attempt);
      const keys = keysOf(attempt);
      if (!rules || keys.length === 0) return;
      const counted = await createBruteForceQueries(pool, attempt.environmentId).fail(keys, rules);
      for (const row of counted) if (row.lockedNow) await lockedOut(attempt, row);
    },
    async succeeded(attempt, db) {
      const identifier = rulesOf(attempt) ? keysOf(attempt).find((k) => k.kind === 'identifier') : undefined;
      if (identifier) await bruteForceChecks(db, attempt.environmentId).clear(identifier);
      return null;
    },
  };
}
