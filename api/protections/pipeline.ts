// The sign-in protections as the hosted pages call them: one Attempt per posted form (sign-in, sign-up, password
// reset), and the hooks of the policies asked in order at three points: before the credential is looked at (rate
// limit, bot detection, lockouts, restrictions), after a failed credential (brute-force counting), and after a good
// one (device risk). The first verdict wins. Each hook reads its settings from `attempt.protections` (the Provider
// snapshot: no query when a policy is off) and records what it does through ./decisions.ts.
import type { RequestOrigin } from '../../db/shared/changes.ts';
import type { Protections } from '../../lib/protections/settings.ts';
import type { Messages } from '../oidc/pages/i18n/index.ts';
import type { BotChallengeWidget } from '../../lib/challenge/kinds.ts';
import type { ProtectionPolicy, SignInFlow } from './decisions.ts';

export interface Attempt {
  environmentId: string;
  tenantId: string;
  flow: SignInFlow;
  /** The saved policies of the environment, as the Provider was built. */
  protections: Protections;
  /** The environment's active bot-challenge add-on, as the Provider was built (absent or null: none). */
  botChallenge?: BotChallengeWidget | null | undefined;
  /** The identifier typed (email or user name), trimmed; null where the form has none. */
  login: string | null;
  /** The user the identifier names, once known (after the credential check; or looked up by a hook). */
  userId: string | null;
  origin: RequestOrigin;
  /** The posted form's fields (a challenge token, for example). */
  fields: Readonly<Record<string, string>>;
  /** The request's headers, lowercased names (user agent, accept-language, a device cookie). */
  headers: Readonly<Record<string, string | string[] | undefined>>;
}

/** What stops an attempt before its credential is looked at. */
export type Refusal =
  /** Refused: the page shows `text` with `status` (429 with Retry-After when `retryAfterSeconds`). */
  | { kind: 'deny'; policy: ProtectionPolicy; reason: string; status: 403 | 429; text: (t: Messages) => string; retryAfterSeconds?: number }
  /** The page asks for the bot challenge (`widget`: the active add-on's) and the form is posted again with its token. */
  | { kind: 'challenge'; policy: ProtectionPolicy; reason: string; text: (t: Messages) => string; widget: BotChallengeWidget };

export type Verdict =
  | Refusal
  /** After a good credential: the sign-in goes on only through a second factor or an emailed code. */
  | { kind: 'step_up'; policy: ProtectionPolicy; reason: string; details?: Record<string, unknown> };

export type StepUpVerdict = Extract<Verdict, { kind: 'step_up' }>;

export interface ProtectionHook {
  policy: ProtectionPolicy;
  before?(attempt: Attempt): Promise<Refusal | null>;
  failed?(attempt: Attempt): Promise<void>;
  succeeded?(attempt: Attempt): Promise<Verdict | null>;
}

/** Wall time spent in the hooks, per call of before/failed/succeeded (bench:protections reads it). */
export interface EvaluationTimings {
  record(ms: number, point: 'before' | 'failed' | 'succeeded'): void;
}

export function createProtectionPipeline(hooks: ProtectionHook[], timings?: EvaluationTimings) {
  const timed = async <T>(point: 'before' | 'failed' | 'succeeded', run: () => Promise<T>): Promise<T> => {
    if (!timings) return run();
    const start = performance.now();
    try {
      return await run();
    } finally {
      timings.record(performance.now() - start, point);
    }
  };
  const first =
    <V>(point: 'before' | 'succeeded', ask: (hook: ProtectionHook, attempt: Attempt) => Promise<V | null> | undefined) =>
    (attempt: Attempt) =>
      timed(point, async () => {
        for (const hook of hooks) {
          const verdict = await ask(hook, attempt);
          if (verdict) return verdict;
        }
        return null;
      });
  return {
    before: first<Refusal>('before', (hook, attempt) => hook.before?.(attempt)),
    succeeded: first<Verdict>('succeeded', (hook, attempt) => hook.succeeded?.(attempt)),
    failed: (attempt: Attempt) =>
      timed('failed', async () => {
        for (const hook of hooks) await hook.failed?.(attempt);
      }),
  };
}

export type ProtectionPipeline = ReturnType<typeof createProtectionPipeline>;
