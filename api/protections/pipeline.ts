// The sign-in protections as the hosted pages call them: one Attempt per posted form (sign-in, sign-up, password
// reset), and the hooks of the policies asked at three points: before the credential is looked at (rate limit, bot
// detection, lockouts, restrictions), after a failed credential (brute-force counting), and after a good one (device
// risk). At each point every hook is asked at once and their statements run as one (db/shared/statement-batch.ts:
// one round trip's wait, not one per policy); the verdict of the first hook in order wins, and only the winning
// refusal is recorded (./decisions.ts).
// Each hook reads its settings from `attempt.protections` (the Provider snapshot: no query when a policy is off).
import type { CommonQueryMethods } from 'slonik';
import type { RequestOrigin } from '../../db/shared/changes.ts';
import { createStatementBatch, type StatementBatch } from '../../db/shared/statement-batch.ts';
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

/** A hook's refusal and how to record it: the pipeline records only the refusal that wins. */
export interface Ruling {
  refusal: Refusal;
  record(): Promise<unknown>;
}

/** A policy's hook at each point; `db` batches the statements the hooks of one point make (see above). */
export interface ProtectionHook {
  policy: ProtectionPolicy;
  before?(attempt: Attempt, db: StatementBatch): Promise<Ruling | null>;
  failed?(attempt: Attempt, db: StatementBatch): Promise<void>;
  succeeded?(attempt: Attempt, db: StatementBatch): Promise<Verdict | null>;
}

/** Wall time spent in the hooks, per call of before/failed/succeeded (bench:protections reads it). */
export interface EvaluationTimings {
  record(ms: number, point: 'before' | 'failed' | 'succeeded'): void;
}

export function createProtectionPipeline(hooks: ProtectionHook[], deps: { db: CommonQueryMethods; timings?: EvaluationTimings | undefined }) {
  const { timings } = deps;
  const timed = async <T>(point: 'before' | 'failed' | 'succeeded', run: () => Promise<T>): Promise<T> => {
    if (!timings) return run();
    const start = performance.now();
    try {
      return await run();
    } finally {
      timings.record(performance.now() - start, point);
    }
  };
  /** Every hook's answer at once, in the hooks' order, their statements batched. */
  const all = <V>(ask: (hook: ProtectionHook, db: StatementBatch) => Promise<V | null> | undefined) => {
    const db = createStatementBatch(deps.db);
    return Promise.all(hooks.map((hook) => ask(hook, db) ?? null));
  };
  return {
    before: (attempt: Attempt) =>
      timed('before', async (): Promise<Refusal | null> => {
        const winner = (await all((hook, db) => hook.before?.(attempt, db))).find((ruling) => ruling !== null);
        if (!winner) return null;
        await winner.record();
        return winner.refusal;
      }),
    succeeded: (attempt: Attempt) =>
      timed('succeeded', async () => (await all((hook, db) => hook.succeeded?.(attempt, db))).find((verdict) => verdict !== null) ?? null),
    failed: (attempt: Attempt) =>
      timed('failed', async () => {
        await all((hook, db) => hook.failed?.(attempt, db));
      }),
  };
}

export type ProtectionPipeline = ReturnType<typeof createProtectionPipeline>;
