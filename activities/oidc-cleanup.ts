// The OIDC clean-up's side effects: each table in its own short transaction, at most one batch each, so a large
// backlog is worked through by repeated calls (the process asks again while `more`). Idempotent: a retry or a replay
// finds what was done gone or settled. A key's retirement is recorded with its audit entry and event.
import type { DatabasePool } from 'slonik';
import { createOidcCleanupQueries, type RetiredOidcKey } from '../db/oidc/cleanup/queries.ts';
import { createOidcCleanupSingletonQueries } from '../db/oidc/cleanup/singleton.ts';
import { keyRetirement } from '../db/oidc/keys/retirement.ts';
import { recordChange } from '../db/shared/changes.ts';
import { deleteExpiredSignInFailures } from '../db/protections/brute-force-cleanup.ts';
import { deleteEndedRateCounters } from '../db/protections/rate-limit.ts';
import type { OidcCleanupInput } from '../lib/processes/contracts.ts';
import type { Activities } from '../workflows/activities.ts';

export interface OidcCleanupDeps {
  pool: DatabasePool;
  /** The configured input of a run (interval, rounds): the next run takes it, so a changed setting applies from then. */
  oidcCleanup?: OidcCleanupInput;
}

export const OIDC_CLEANUP_BATCH = 1000;
/** How long one step keeps taking batches while tables have more (well within the 2-minute activity timeout). */
export const OIDC_CLEANUP_BUDGET_MS = 10_000;

export function createOidcCleanupActivities(deps: OidcCleanupDeps): Pick<Activities, 'cleanUpOidc' | 'continueOidcCleanup'> {
  const retire = (limit: number) =>
    deps.pool.transaction(async (trx) => {
      const keys: RetiredOidcKey[] = await createOidcCleanupQueries(trx).retireDueKeys(limit);
      for (const key of keys) {
        await recordChange(trx, {
          ...keyRetirement(key),
          actor: { type: 'system', id: 'oidc-cleanup' },
          scope: { tenantId: key.tenantId, environmentId: key.environmentId },
        });
      }
      return keys.length;
    });

  return {
    cleanUpOidc: async ({ batchSize, budgetMs }) => {
      const limit = batchSize ?? OIDC_CLEANUP_BATCH;
      const until = performance.now() + (budgetMs ?? OIDC_CLEANUP_BUDGET_MS);
      const q = createOidcCleanupQueries(deps.pool);
      const counts = {
        payloads: 0,
        passwordLinks: 0,
        sessions: 0,
        emailCodes: 0,
        signUpCodes: 0,
        signInFailures: 0,
        keysRetired: 0,
        keysDeleted: 0,
        rateCounters: 0,
      };
      // Batches until no table fills one or the budget is spent: a backlog is worked through without one step per batch.
      for (;;) {
        const batch = {
          payloads: await q.deleteExpiredPayloads(limit),
          passwordLinks: await q.deleteExpiredPasswordLinks(limit),
          sessions: await q.deleteEndedSessions(limit),
          emailCodes: await q.deleteExpiredEmailCodes(limit),
          signUpCodes: await q.deleteSupersededSignUpCodes(limit),
          signInFailures: await deleteExpiredSignInFailures(deps.pool, limit),
          keysRetired: await retire(limit),
          keysDeleted: await q.deleteRetiredKeys(limit),
          rateCounters: await deleteEndedRateCounters(deps.pool, limit),
        };
        for (const key of Object.keys(counts) as (keyof typeof counts)[]) counts[key] += batch[key];
        const more = Object.values(batch).some((n) => n >= limit);
        if (!more || performance.now() >= until) return { ...counts, more };
      }
    },

    continueOidcCleanup: async (input) => {
      const next = deps.oidcCleanup ?? input;
      await createOidcCleanupSingletonQueries(deps.pool).enqueueStart(next, next.intervalMs);
    },
  };
}
