// The sweeper: every PROCESS_SWEEP_INTERVAL, restarts the process of any row that should have one running but
// whose process failed (its activities hit a programming error, a Temporal timeout…) or is missing (its start
// was lost or went dead in the outbox): pending invitations (`invitation-expiry`), domains pending verification
// (`domain-verification`), impersonation grants in force (`impersonation-expiry`), pending deliveries (`delivery-batch`
// before their first attempt, `webhook-delivery` after it), environments with directory-sync work waiting
// (`directory-sync`, which ends when idle: a completed one is started again), trust-store keys retiring after a
// rotation (`trust-store-key-retirement`). Restarts go through the outbox like every start; a start restarts a
// failed process and leaves a
// running or completed one alone (ALLOW_DUPLICATE_FAILED_ONLY on Temporal, the same on the embedded engine).
import type { DatabasePool } from 'slonik';
import { createProcessOutboxQueries, processId } from '../db/processes/outbox.ts';
import { createSweepQueries } from '../db/processes/sweep.ts';
import type { ProcessGateway, ProcessKind } from '../workflows/port.ts';

/** Rows looked at per kind and sweep. */
const SWEEP_LIMIT = 500;
/** Rows younger than this are left alone: their start may be on its way through the outbox. */
const GRACE_MS = 60_000;

export interface Sweeper {
  /** One sweep; resolves with the number of processes it (re)started. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

export function startSweeper(deps: {
  pool: DatabasePool;
  gateway: ProcessGateway;
  scheduleMs: number[];
  domains: { verificationIntervalsMs: number[]; verificationGiveUpMs: number };
  intervalMs: number;
  graceMs?: number;
  onError: (error: unknown) => void;
  log?: (message: string) => void;
}): Sweeper {
  const grace = deps.graceMs ?? GRACE_MS;
  const log = deps.log ?? ((message: string) => console.warn(message));
  const status = async (kind: ProcessKind, entityId: string) => (await deps.gateway.describe(processId(kind, entityId))).status;
  const needsStart = async (kind: ProcessKind, entityId: string) => ['failed', 'unknown'].includes(await status(kind, entityId));

  const sweep = async () => {
    const queries = createSweepQueries(deps.pool);
    type Start = Parameters<ReturnType<typeof createProcessOutboxQueries>['enqueueStart']>[0];
    const starts: Start[] = [];
    for (const i of await queries.pendingInvitations(grace, SWEEP_LIMIT)) {
      if (await needsStart('invitation-expiry', i.id)) {
        starts.push({ kind: 'invitation-expiry', entityId: i.id, tenantId: null, input: { invitationId: i.id, expiresAt: i.expiresAt } });
      }
    }
    for (const g of await queries.pendingImpersonationGrants(grace, SWEEP_LIMIT)) {
      if (await needsStart('impersonation-expiry', g.id)) {
        starts.push({ kind: 'impersonation-expiry', entityId: g.id, tenantId: g.tenantId, input: { grantId: g.id, expiresAt: g.expiresAt } });
      }
    }
    for (const d of await queries.pendingDomains(grace, SWEEP_LIMIT)) {
      if (await needsStart('domain-verification', d.id)) {
        const input = { domainId: d.id, intervalsMs: deps.domains.verificationIntervalsMs, giveUpAfterMs: deps.domains.verificationGiveUpMs };
        starts.push({ kind: 'domain-verification', entityId: d.id, tenantId: d.tenantId, input });
      }
    }
    for (const k of await queries.retiringKeys(grace, SWEEP_LIMIT)) {
      if (await needsStart('trust-store-key-retirement', k.id)) {
        starts.push({ kind: 'trust-store-key-retirement', entityId: k.id, tenantId: k.tenantId, input: { keyId: k.id, retiresAt: k.retiresAt } });
      }
    }
    for (const r of await queries.pendingElevateRequests(grace, SWEEP_LIMIT)) {
      if (await needsStart('elevate-request', r.id)) {
        const input = { requestId: r.id, createdAt: r.createdAt, expiresAt: r.expiresAt, escalate: r.escalate };
        starts.push({ kind: 'elevate-request', entityId: r.id, tenantId: r.tenantId, input });
      }
    }
    for (const g of await queries.openElevateGrants(grace, SWEEP_LIMIT)) {
      if (await needsStart('elevate-grant', g.id))
        starts.push({ kind: 'elevate-grant', entityId: g.id, tenantId: g.tenantId, input: { grantId: g.id, until: g.until } });
    }
    const batches = new Set<string>();
    for (const d of await queries.pendingDeliveries(grace, SWEEP_LIMIT)) {
      if (d.attemptCount === 0) {
        // Not attempted yet: its batch makes the first attempt.
        if (d.batchId && !batches.has(d.batchId) && (await needsStart('delivery-batch', d.batchId))) {
          batches.add(d.batchId);
          starts.push({ kind: 'delivery-batch', entityId: d.batchId, tenantId: null, input: { batchId: d.batchId, scheduleMs: deps.scheduleMs } });
        }
        continue;
      }
      const own = await status('webhook-delivery', d.id);
      // A delivery's own process is started by its batch once the batch has made every first attempt.
      const batchRunning = own === 'unknown' && d.batchId !== null && (await status('delivery-batch', d.batchId)) === 'running';
      if (own === 'failed' || (own === 'unknown' && !batchRunning)) {
        const input = { deliveryId: d.id, scheduleMs: deps.scheduleMs, firstAttempt: d.attemptCount + 1, firstDelayMs: d.nextDelayMs };
        starts.push({ kind: 'webhook-delivery', entityId: d.id, tenantId: d.tenantId, input });
      }
    }
    // Directory sync ends when idle, so a completed one with work waiting needs a start too.
    for (const e of await queries.pendingDirectorySyncs(grace, SWEEP_LIMIT)) {
      if ((await status('directory-sync', e.id)) !== 'running') {
        starts.push({ kind: 'directory-sync', entityId: e.id, tenantId: e.tenantId, input: { environmentId: e.id } });
      }
    }
    if (starts.length === 0) return 0;
    await deps.pool.transaction(async (trx) => {
      const outbox = createProcessOutboxQueries(trx);
      for (const start of starts) await outbox.enqueueStart(start);
    });
    log(`process sweeper: restarting ${starts.length} failed or missing processes (${starts.map((s) => processId(s.kind, s.entityId)).join(', ')})`);
    return starts.length;
  };

  let stopped = false;
  let running: Promise<number> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const runOnce = () => (running ??= sweep().finally(() => (running = undefined)));
  const schedule = () => {
    timer = setTimeout(() => {
      runOnce()
        .catch(deps.onError)
        .finally(() => !stopped && schedule());
    }, deps.intervalMs);
  };
  schedule();
  return {
    runOnce,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => {});
    },
  };
}
