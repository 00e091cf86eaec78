// The bot-detection policy: each attempt is scored from its signals (lib/protections/bot-signals.ts: automation user
// agents, headers every browser sends, the form stamp's age, the IP address's cadence on this instance); from the
// sensitivity's threshold on it is automated. `silent` records `protection.warned` and lets it on; `step_up` asks for
// the bot challenge unless the attempt passed it (without an active bot-challenge add-on: as `block`); `block`
// denies (403) and opens or adds to a `sign_in.bot_detection` threat.
import type { DatabasePool } from 'slonik';
import { botSignals, createCadence, scoreOf, THRESHOLDS } from '../../lib/protections/bot-signals.ts';
import { createFormStamps } from '../../lib/protections/form-stamp.ts';
import { recordDecision } from './decisions.ts';
import type { BotChallenge } from './challenge.ts';
import type { ProtectionHook, Ruling } from './pipeline.ts';

/** The hidden field of the pages' forms that carries the form stamp. */
export const FORM_STAMP_FIELD = 'formStamp';

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

export function botDetectionHook(deps: { pool: DatabasePool; masterKey: Buffer; challenge: BotChallenge }): ProtectionHook {
  const stamps = createFormStamps(deps.masterKey);
  const cadence = createCadence();
  return {
    policy: 'bot_detection',
    async before(a): Promise<Ruling | null> {
      const s = a.protections.bot_detection;
      if (!s?.enabled) return null;
      const now = Date.now();
      const signals = botSignals({
        userAgent: header(a.headers['user-agent']),
        acceptLanguage: header(a.headers['accept-language']),
        accept: header(a.headers.accept),
        stamp: stamps.read(a.environmentId, a.fields[FORM_STAMP_FIELD], now),
        posts: cadence.post(`${a.environmentId}|${a.origin.ip ?? ''}`, now),
      });
      const score = scoreOf(signals);
      if (score < THRESHOLDS[s.sensitivity]) return null;
      const details = { score, signals, sensitivity: s.sensitivity, challengeMode: s.challengeMode };
      const decision = {
        environmentId: a.environmentId,
        tenantId: a.tenantId,
        policy: 'bot_detection' as const,
        flow: a.flow,
        userId: a.userId,
        login: a.login,
      };
      const reason = 'automation_suspected';
      if (s.challengeMode === 'silent') {
        await recordDecision(deps.pool, { ...decision, outcome: 'warned', reason, origin: a.origin, details });
        return null;
      }
      if (s.challengeMode === 'step_up') {
        const c = await deps.challenge.check(a);
        if (c.state === 'passed') return null;
        if (c.state === 'required') {
          const why = c.failed ? 'challenge_failed' : reason;
          return {
            refusal: {
              kind: 'challenge',
              policy: 'bot_detection',
              reason: why,
              widget: c.widget,
              text: (t) => (c.failed ? t.challengeFailed : t.challengeRequired),
            },
            record: () =>
              recordDecision(deps.pool, { ...decision, outcome: 'challenged', reason: why, origin: a.origin, details: { ...details, ...c.failed } }),
          };
        }
      }
      return {
        refusal: { kind: 'deny', policy: 'bot_detection', reason, status: 403, text: (t) => t.botBlocked },
        record: () =>
          recordDecision(deps.pool, {
            ...decision,
            outcome: 'blocked',
            reason,
            origin: a.origin,
            threat: { severity: 'medium', summary: `Automated ${a.flow.replace('_', '-')} attempts (${signals.join(', ')})` },
            details: { ...details, ...(s.challengeMode === 'step_up' ? { challengeUnavailable: true } : {}) },
          }),
      };
    },
  };
}
