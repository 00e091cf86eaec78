// What a process kind is: one definition per kind (in its own module) says everything the engines, the sweeper, the
// history export and Temporal UI need; the registry (index.ts) lists them, typed so that a kind that misses a piece
// does not compile. Everything here is pure (the Temporal workflow bundle loads it): storage is named, not imported.
import type { OidcCleanupInput, RetentionInput, VanityTimings, ProcessInput, ProcessKind, ProcessScope, ProcessTopics } from '../lib/processes/contracts.ts';
import type { ScopeQuery, SweepQuery, SweepRows } from '../lib/processes/lookups.ts';
import type { ActivityInput, ActivityName, ActivityOutput, ProcessContext, ProcessDescription } from './port.ts';

/** How a step appears in Temporal UI. `attempts`: a delivery's number of attempts ("attempt 3/8"). */
export interface ActivityDescription<N extends ActivityName> {
  /** What the step is for: the activity's summary. */
  summary(input: ActivityInput<N>, attempts: number | undefined): string;
  /** What the step found: the workflow's current details (default `<name> done`). */
  outcome?(output: ActivityOutput<N>, input: ActivityInput<N>, attempts: number | undefined): string;
  /** A delivery attempt: the attempt made, and the delay until the next one (null once settled), kept in search attributes. */
  attempt?(input: ActivityInput<N>, output: ActivityOutput<N>): { attempt: number; nextDelayMs: number | null };
}

/** The activities a kind runs, each described. */
export type ActivityDescriptions = { [N in ActivityName]?: ActivityDescription<N> };

/** A start the sweeper enqueues, typed by kind. */
export type PlannedStart = { [K in ProcessKind]: { kind: K; entityId: string; tenantId: string | null; input: ProcessInput<K> } }[ProcessKind];

/** What starts need that rows do not hold (the service's configuration). */
export interface SweepSettings {
  scheduleMs: number[];
  domains: { verificationIntervalsMs: number[]; verificationGiveUpMs: number };
  /** The input of the OIDC clean-up's runs (OIDC_CLEANUP_INTERVAL_SECONDS, OIDC_CLEANUP_ROUNDS_PER_RUN). */
  oidcCleanup?: OidcCleanupInput;
  /** The input of the retention process's runs (RETENTION_INTERVAL and the retention settings). */
  retention?: RetentionInput;
  /** The durations of vanity-domain processes (VANITY_DNS_INTERVAL, VANITY_DNS_GIVE_UP, VANITY_RENEW_BEFORE). */
  vanity?: VanityTimings;
}

/** The status of the process of `kind` for `entityId`, as the engine reports it. */
export type StatusOf = (kind: ProcessKind, entityId: string) => Promise<ProcessDescription['status']>;

/**
 * How the sweeper finds the rows that should have a process of this kind running (`rows`, a query of
 * db/processes/sweep.ts), and what to start for those whose process failed or is missing (`plan`).
 */
export type Sweep = {
  [Q in SweepQuery]: { rows: Q; plan(rows: SweepRows[Q][], settings: SweepSettings, status: StatusOf): Promise<PlannedStart[]> };
}[SweepQuery];

export interface ProcessDefinition<K extends ProcessKind> {
  /** The Temporal workflow type. Never rename it: it (and the kind, DBOS's name) identifies running workflows. */
  workflowType: string;
  /** The process logic, written against the port (deterministic, engine-neutral). */
  logic(ctx: ProcessContext<ProcessTopics<K>>, input: ProcessInput<K>): Promise<unknown>;
  /** Every activity the logic runs, described for Temporal UI. */
  activities: ActivityDescriptions;
  /** The sweeper's rule for this kind, or null with the reason (another kind's sweep starts it). */
  sweep: Sweep | { none: string };
  /** Where the scope (search attributes, details) of a process of this kind is read from. */
  scope(input: ProcessInput<K>): ScopeQuery;
  /** What a workflow of this kind is for: its static summary (one line) and the first paragraph of its details. */
  describe(input: ProcessInput<K>, entityId: string, scope: ProcessScope): { summary: string; details: string };
  /** Temporal only: what the workflow's current details start from (a delivery's attempts, the attempt it starts at). */
  temporalStart?(input: ProcessInput<K>): TemporalStart;
}

export interface TemporalStart {
  attempts?: number;
  status?: string;
  nextAttempt?: number;
  /** The attempt already made, and the delay until the next one, for the search attributes. */
  attempted?: { attempt: number; nextDelayMs: number };
}

/** Declares a kind's definition, typed by its kind (its logic takes the kind's input and topics). */
export const defineProcess = <K extends ProcessKind>(_kind: K, definition: ProcessDefinition<K>): ProcessDefinition<K> => definition;

/** The usual sweep: start a row's process again when it failed or is missing. */
export function restartFailedOrMissing<K extends ProcessKind, Q extends SweepQuery>(
  kind: K,
  rows: Q,
  start: (row: SweepRows[Q], settings: SweepSettings) => { entityId: string; tenantId: string | null; input: ProcessInput<K> },
): Sweep {
  const plan = async (found: SweepRows[Q][], settings: SweepSettings, status: StatusOf) => {
    const starts: PlannedStart[] = [];
    for (const row of found) {
      const planned = start(row, settings);
      if (['failed', 'unknown'].includes(await status(kind, planned.entityId))) starts.push({ kind, ...planned } as PlannedStart);
    }
    return starts;
  };
  return { rows, plan } as Sweep;
}

export const iso = (ms: number) => new Date(ms).toISOString();

/** A duration as operators read it: `2 h`, `15 min`, `0.2 s`. */
export const duration = (ms: number) =>
  ms === 0 ? '0' : ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : ms % 60_000 === 0 ? `${ms / 60_000} min` : `${ms / 1000} s`;

/** The outcome of an expiry-like step: "not due yet (expires at …)" or what it did. */
export const dueOutcome = (label: string, at: number | undefined, outcome: string) => (at === undefined ? outcome : `not due yet (${label} at ${iso(at)})`);
