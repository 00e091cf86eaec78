// The OIDC clean-up's side effects: each table in its own short transaction, at most one batch each, so a large
// backlog is worked through by repeated calls (the process asks again while `more`). Idempotent: a retry or a replay
// finds what was done gone or settled. A key's retirement is recorded with its audit entry and event.
import type { DatabasePool } from 'slonik';
import { createOidcCleanupQueries, type RetiredOidcKey } from '../db/oidc/cleanup/queries.ts';
import { createOidcCleanupSingletonQueries } from '../db/oidc/cleanup/singleton.ts';
import { recordChange } from '../db/shared/changes.ts';
import type { OidcCleanupInput } from '../lib/processes/contracts.ts';
import type { Activities } from '../workflows/activities.ts';

export interface OidcCleanupDeps {
  pool: DatabasePool;
  /** The configured input of a run (interval, rounds): the next run takes it, so a changed setting applies from then. */
  oidcCleanup?: OidcCleanupInput;
}

export const OIDC_CLEANUP_BATCH = 1000;

export function createOidcCleanupActivities(deps: OidcCleanupDeps): Pick<Activities, 'cleanUpOidc' | 'continueOidcCleanup'> {
  const retire = (limit: number) =>
    deps.pool.transaction(async (trx) => {
      const keys: RetiredOidcKey[] = await createOidcCleanupQueries(trx).retireDueKeys(limit);
      for (const key of keys) {
        await recordChange(trx, {
          actor: { type: 'system', id: 'oidc-cleanup' },
          action: 'oidc_signing_key.retire',
          resource: { type: 'oidc_signing_key', id: key.id },
          scope: { tenantId: key.tenantId, environmentId: key.environmentId },
          before: { status: 'retiring', retiresAt: key.retiresAt },
          after: { status: 'retired', retiresAt: null },
          event: {
            type: 'oidc_signing_key.retired',
            data: { key: { id: key.id, kid: key.kid, alg: key.alg, status: 'retired', retiresAt: null }, retiredAfter: key.retiresAt },
          },
        });
      }
      return keys.length;
    });

  return {
    cleanUpOidc: async ({ batchSize }) => {
      const limit = batchSize ?? OIDC_CLEANUP_BATCH;
      const q = createOidcCleanupQueries(deps.pool);
      const counts = {
        payloads: await q.deleteExpiredPayloads(limit),
        passwordLinks: await q.deleteExpiredPasswordLinks(limit),
        sessions: await q.deleteEndedSessions(limit),
        keysRetired: await retire(limit),
        keysDeleted: await q.deleteRetiredKeys(limit),
      };
      return { ...counts, more: Object.values(counts).some((n) => n >= limit) };
    },

    continueOidcCleanup: async (input) => {
      const next = deps.oidcCleanup ?? input;
      await createOidcCleanupSingletonQueries(deps.pool).enqueueStart(next, next.intervalMs);
    },
  };
}

