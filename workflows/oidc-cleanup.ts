// The deployment's OIDC clean-up: every interval, deletes the provider's expired records, old password links and
// sign-in codes, ended directory sessions and keys long retired, and retires signing keys at the end of their
// retirement period. One process per deployment (db/oidc/cleanup/singleton.ts). A run makes `rounds` rounds, then
// starts its next run through the outbox, due after the interval, and ends: the engine-neutral continue-as-new, so
// histories stay bounded on both engines (RESTARTED_WHEN_COMPLETED lets the same id run again).
import type { OidcCleanupInput } from '../lib/processes/contracts.ts';
import { defineProcess, duration, type PlannedStart } from './definition.ts';
import type { ProcessContext } from './port.ts';
import { INFRASTRUCTURE_RETRY } from './port.ts';

export type { OidcCleanupInput } from '../lib/processes/contracts.ts';

/** OIDC_CLEANUP_INTERVAL_SECONDS's default, in ms. */
export const DEFAULT_INTERVAL_MS = 300_000;
/** Rounds per run (two hours at the default interval of 5 min). */
export const ROUNDS_PER_RUN = 24;
/** Steps per round at most (each works up to 10 s): a larger backlog waits for the next round, so one round's history stays short. */
export const MAX_STEPS_PER_ROUND = 20;

export async function oidcCleanup(ctx: ProcessContext, input: OidcCleanupInput): Promise<'continued'> {
  const rounds = input.rounds ?? ROUNDS_PER_RUN;
  for (let round = 1; round <= rounds; round++) {
    for (let step = 0; step < MAX_STEPS_PER_ROUND; step++) {
      const result = await ctx.run('cleanUpOidc', {}, INFRASTRUCTURE_RETRY);
      if (!result.more) break;
    }
    if (round < rounds) await ctx.sleep(input.intervalMs);
  }
  await ctx.run('continueOidcCleanup', input, INFRASTRUCTURE_RETRY);
  return 'continued';
}

export const oidcCleanupProcess = defineProcess('oidc-cleanup', {
  workflowType: 'oidcCleanupWorkflow',
  logic: oidcCleanup,
  activities: {
    cleanUpOidc: {
      summary: () => 'delete expired OIDC records and retire due signing keys',
      outcome: (o) =>
        `${o.payloads} provider records, ${o.passwordLinks} password links, ${o.sessions} sessions, ` +
        `${(o.emailCodes ?? 0) + (o.signUpCodes ?? 0)} sign-in codes, ${o.signInFailures ?? 0} brute-force counters deleted; ` +
        `${o.keysRetired} keys retired, ${o.keysDeleted} deleted${o.more ? '; more to do' : ''}`,
    },
    continueOidcCleanup: {
      summary: (i) => `start the next run, due in ${duration(i.intervalMs)}`,
      outcome: () => 'next run enqueued',
    },
  },
  // Started at boot and by each run's end; the sweeper starts it when neither left a start waiting and it is not running.
  sweep: {
    rows: 'oidcCleanup',
    plan: async (rows, settings, status) => {
      const starts: PlannedStart[] = [];
      for (const row of rows) {
        if ((await status('oidc-cleanup', row.id)) !== 'running') {
          starts.push({ kind: 'oidc-cleanup', entityId: row.id, tenantId: null, input: settings.oidcCleanup ?? { intervalMs: DEFAULT_INTERVAL_MS } });
        }
      }
      return starts;
    },
  },
  scope: () => ({ of: 'tenant' }),
  describe: (i) => ({
    summary: `Cleans up expired OIDC records every ${duration(i.intervalMs)}`,
    details:
      `Every ${duration(i.intervalMs)}: deletes the OpenID provider's expired records (tokens, codes, sessions, interactions, grants), ` +
      'password links and sign-in email codes expired over a day ago, superseded sign-up codes, brute-force counters whose window and lockout ended, directory sessions ended over 30 days ago and signing keys retired over 7 days ago, ' +
      `and retires signing keys whose retirement time has passed (event \`oidc_signing_key.retired\`). ` +
      `After ${i.rounds ?? ROUNDS_PER_RUN} rounds it starts its next run and ends, so its history stays short.`,
  }),
});
