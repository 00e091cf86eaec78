// The rate-limit policy: every attempt of a flow it applies to is counted in Postgres per key (IP address, IP address
// and identifier, or identifier) in fixed windows; over `maxAttempts` it denies (429, Retry-After: the window's end,
// and a `sign_in.rate_limit` threat) or, with `action: challenge`, asks for the bot challenge, whose passed token lets
// that attempt through. Without an active bot-challenge add-on, `challenge` denies.
import type { DatabasePool } from 'slonik';
import { rateLimitCounters } from '../../db/protections/rate-limit.ts';
import type { ProtectionSettings } from '../../lib/protections/settings.ts';
import { fillText } from '../oidc/pages/i18n/index.ts';
import { recordDecision } from './decisions.ts';
import type { BotChallenge } from './challenge.ts';
import type { Attempt, ProtectionHook, Ruling } from './pipeline.ts';

type Settings = ProtectionSettings<'rate_limit'>;

const applies = (s: Settings, flow: Attempt['flow']) =>
  flow === 'sign_in' ? s.applySignIn : flow === 'sign_up' ? s.applySignUp : flow === 'password_reset' ? s.applyPasswordReset : false;

/** The counted key: the identifier lowercased; `user` without an identifier counts the IP address. */
function keyOf(s: Settings, a: Attempt) {
  const ip = a.origin.ip ?? 'unknown';
  const login = a.login?.toLowerCase() ?? null;
  if (s.scope === 'user' && login !== null) return `user:${login}`;
  if (s.scope === 'ip_user' && login !== null) return `ip_user:${ip}|${login}`;
  return `ip:${ip}`;
}

export function rateLimitHook(deps: { pool: DatabasePool; challenge: BotChallenge }): ProtectionHook {
  return {
    policy: 'rate_limit',
    async before(a, db): Promise<Ruling | null> {
      const s = a.protections.rate_limit;
      if (!s?.enabled || !applies(s, a.flow)) return null;
      const { hits, retryAfterSeconds } = await rateLimitCounters(db, a.environmentId).hit(a.flow, keyOf(s, a), s.windowSeconds);
      if (hits <= s.maxAttempts) return null;
      const decision = { environmentId: a.environmentId, tenantId: a.tenantId, policy: 'rate_limit' as const, flow: a.flow, userId: a.userId, login: a.login };
      const details = { scope: s.scope, attempts: hits, maxAttempts: s.maxAttempts, windowSeconds: s.windowSeconds, action: s.action };
      if (s.action === 'challenge') {
        const c = await deps.challenge.check(a);
        if (c.state === 'passed') return null;
        if (c.state === 'required') {
          const reason = c.failed ? 'challenge_failed' : 'too_many_attempts';
          return {
            refusal: { kind: 'challenge', policy: 'rate_limit', reason, widget: c.widget, text: (t) => (c.failed ? t.challengeFailed : t.challengeRequired) },
            record: () => recordDecision(deps.pool, { ...decision, outcome: 'challenged', reason, origin: a.origin, details: { ...details, ...c.failed } }),
          };
        }
      }
      return {
        refusal: {
          kind: 'deny',
          policy: 'rate_limit',
          reason: 'too_many_attempts',
          status: 429,
          retryAfterSeconds,
          text: (t) => fillText(t.rateLimited, { seconds: String(retryAfterSeconds) }),
        },
        record: () =>
          recordDecision(deps.pool, {
            ...decision,
            outcome: 'blocked',
            reason: 'too_many_attempts',
            origin: a.origin,
            threat: { severity: 'medium', summary: `Attempts over the rate limit (${s.maxAttempts} per ${s.windowSeconds} s)` },
            details: { ...details, retryAfterSeconds, ...(s.action === 'challenge' ? { challengeUnavailable: true } : {}) },
          }),
      };
    },
  };
}
