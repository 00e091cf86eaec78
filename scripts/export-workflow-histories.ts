// `npm run workflows:export-histories`: records the event history of one workflow of each process kind, down each
// of its interesting paths, on a real Temporal server, as proto3 JSON (the format Temporal's tools export; see
// scripts/history-json.ts), into test/fixtures/workflow-histories/<kind>-<path>.json. The replay test
// (test/workflows/replay.test.ts) replays every file there against the current workflow code, offline: a change
// that alters the commands of a running workflow without a `patched()` guard fails it.
//
// A dev server (scripts/temporal-cli.ts, in memory, headless) runs the real workflow bundle (worker/bundle.ts) with
// stub activities that answer as the real ones would (no database, no HTTP); each workflow is started through the
// production gateway (search attributes, summaries) with the input its outbox entry carries, on short schedules,
// so the whole export takes well under a minute. Add a scenario here for a new process kind or path, and keep
// the fixtures of older code: they stand for workflows that may still be running.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { OutboxStart } from '../db/processes/outbox.ts';
import { bundleWorkflows } from '../worker/bundle.ts';
import { createTemporalGateway, TASK_QUEUE, type ScopeLookup, type TemporalGateway } from '../worker/temporal-gateway.ts';
import { workerSinks } from '../worker/temporal-telemetry.ts';
import type { Activities, AttemptResult } from '../workflows/activities.ts';
import type { ProcessInput, ProcessKind } from '../workflows/port.ts';
import { historyToJSON } from './history-json.ts';
import { findOrInstallTemporal, freePort, startDevServer } from './temporal-cli.ts';

const HISTORIES_DIR = path.resolve(import.meta.dirname, '../test/fixtures/workflow-histories');

const tenantId = randomUUID();
const organizationId = randomUUID();
const endpointId = randomUUID();
const environmentId = randomUUID();

/** One workflow to record: the outbox start that begins it, what drives it while it runs, and how it must end. */
interface Scenario {
  /** The fixture's name: `<kind>-<path>`. */
  fixture: string;
  start: OutboxStart;
  drive?: (gateway: TemporalGateway, client: Client) => Promise<void>;
  result: unknown;
}

/** The stub database the stub activities read and write. */
const invitations = new Map<string, number>(); // invitation id → expiresAt
const impersonationGrants = new Map<string, number>(); // grant id → expiresAt
const retiringKeys = new Map<string, number>(); // trust-store key id → retiresAt
const elevateRequests = new Map<string, number>(); // pending access request id → expiresAt
const elevateGrants = new Map<string, number>(); // open grant id → end of its current phase
const domainChecks = new Map<string, number>(); // domain id → checks so far
const verifiesAt = new Map<string, number>(); // domain id → the check that finds the TXT record
/** Per delivery, what each attempt gets: [status code, Retry-After in ms]. */
const responses = new Map<string, Record<number, [number, number?]>>();
/** Deliveries of a batch: id → what its first attempt gets. */
const batches = new Map<string, { deliveryId: string; statusCode: number; retryAfterMs?: number }[]>();
/** OIDC clean-up batches left: each call takes one, `more` while some remain. */
let oidcBatches = 0;
/** Per message, the outcome of each attempt in turn (the real activity answers from the vendor's answer). */
const messageAttempts = new Map<string, ('retry' | 'next' | 'sent')[]>();
/** Per revoked session, what each back-channel logout attempt gets in turn (the real activity answers from the RP's answer). */
const logoutAttempts = new Map<string, { outcome: 'retry' | 'sent'; statusCode: number }[]>();
/** Per vanity domain, what its rounds answer in turn (then: removed). */
const vanitySteps = new Map<string, { done: boolean; status: string; waitMs: number }[]>();
/** Per environment, when its pending lifecycle changes are due. */
const lifecycleChanges = new Map<string, number[]>();

/** What the activities of activities/ return, from the stub database above. */
const activities: Activities = {
  attemptDelivery: ({ deliveryId, attempt, nextDelayMs }) => {
    const [statusCode, retryAfterMs] = responses.get(deliveryId)?.[attempt] ?? [200];
    const result: AttemptResult =
      statusCode < 300
        ? { done: true, status: 'succeeded', statusCode, error: null }
        : nextDelayMs === null
          ? { done: true, status: 'failed', statusCode, error: null }
          : { done: false, nextDelayMs: Math.max(nextDelayMs, retryAfterMs ?? 0), statusCode, error: null };
    return Promise.resolve(result);
  },
  attemptBatch: ({ batchId, nextDelayMs }) =>
    Promise.resolve(
      (batches.get(batchId) ?? [])
        .filter((d) => d.statusCode >= 300 && nextDelayMs !== null)
        .map((d) => ({ deliveryId: d.deliveryId, tenantId, nextDelayMs: Math.max(nextDelayMs!, d.retryAfterMs ?? 0) })),
    ),
  // The real one enqueues a webhook-delivery start per delivery to retry (the `webhook-delivery` scenario is one).
  continueDeliveries: () => Promise.resolve(),
  checkDomain: ({ domainId }) => {
    const checks = (domainChecks.get(domainId) ?? 0) + 1;
    domainChecks.set(domainId, checks);
    const verified = checks === verifiesAt.get(domainId);
    return Promise.resolve({ done: verified, verified });
  },
  failDomainVerification: () => Promise.resolve(),
  expireInvitation: ({ invitationId }) => {
    const expiresAt = invitations.get(invitationId);
    if (expiresAt === undefined) return Promise.resolve({ outcome: 'settled' as const });
    if (Date.now() < expiresAt) return Promise.resolve({ outcome: 'pending' as const, expiresAt });
    invitations.delete(invitationId);
    return Promise.resolve({ outcome: 'expired' as const });
  },
  expireImpersonationGrant: ({ grantId }) => {
    const expiresAt = impersonationGrants.get(grantId);
    if (expiresAt === undefined) return Promise.resolve({ outcome: 'settled' as const });
    if (Date.now() < expiresAt) return Promise.resolve({ outcome: 'pending' as const, expiresAt });
    impersonationGrants.delete(grantId);
    return Promise.resolve({ outcome: 'expired' as const });
  },
  syncDirectory: ({ environmentId }) => {
    const pending = lifecycleChanges.get(environmentId) ?? [];
    const rest = pending.filter((dueAt) => dueAt > Date.now());
    lifecycleChanges.set(environmentId, rest);
    return Promise.resolve({ deprovisioned: 0, applied: pending.length - rest.length, more: false, nextDueAt: rest[0] ?? null });
  },
  retireTrustStoreKey: ({ keyId }) => {
    const retiresAt = retiringKeys.get(keyId);
    if (retiresAt === undefined) return Promise.resolve({ outcome: 'settled' as const });
    if (Date.now() < retiresAt) return Promise.resolve({ outcome: 'pending' as const, retiresAt });
    retiringKeys.delete(keyId);
    return Promise.resolve({ outcome: 'retired' as const });
  },
  nudgeElevateRequest: ({ requestId }) => Promise.resolve({ outcome: elevateRequests.has(requestId) ? ('sent' as const) : ('settled' as const) }),
  expireElevateRequest: ({ requestId }) => {
    const expiresAt = elevateRequests.get(requestId);
    if (expiresAt === undefined) return Promise.resolve({ outcome: 'settled' as const });
    if (Date.now() < expiresAt) return Promise.resolve({ outcome: 'pending' as const, expiresAt });
    elevateRequests.delete(requestId);
    return Promise.resolve({ outcome: 'expired' as const });
  },
  expireElevateGrant: ({ grantId }) => {
    const until = elevateGrants.get(grantId);
    if (until === undefined) return Promise.resolve({ outcome: 'settled' as const });
    if (Date.now() < until) return Promise.resolve({ outcome: 'waiting' as const, until });
    elevateGrants.delete(grantId);
    return Promise.resolve({ outcome: 'expired' as const });
  },
  cleanUpOidc: () => {
    oidcBatches = Math.max(0, oidcBatches - 1);
    return Promise.resolve({ payloads: 1000, passwordLinks: 0, sessions: 0, keysRetired: 0, keysDeleted: 0, more: oidcBatches > 0 });
  },
  // The real one enqueues the next run's start in the outbox.
  continueOidcCleanup: () => Promise.resolve(),
  applyRetention: () => Promise.resolve({ created: 1, dropped: ['events_p202401'] }),
  continueRetention: () => Promise.resolve(),
  advanceVanityDomain: ({ domainId }) => Promise.resolve(vanitySteps.get(domainId)?.shift() ?? { done: true, status: 'removed', waitMs: 0 }),
  attemptMessage: ({ messageId }) => Promise.resolve({ outcome: messageAttempts.get(messageId)?.shift() ?? ('settled' as const) }),
  attemptBackChannelLogout: ({ sessionId }) => Promise.resolve(logoutAttempts.get(sessionId)?.shift() ?? { outcome: 'settled' as const }),
  syncBilling: () => Promise.resolve({ configured: true as const, productsPushed: 1, pricesPushed: 1, subscriptionsPulled: 0, error: null }),
  // The real one enqueues the next run's start in the outbox.
  continueBillingSync: () => Promise.resolve(),
};

/** Who and what each process is about: the query its definition names, answered as createProcessScopeQueries(pool).scopeOf would. */
const scopeOf: ScopeLookup = (query) => {
  if (query.of === 'invitation') return Promise.resolve({ tenantId: null, organizationId, invitationId: query.invitationId });
  if (query.of === 'delivery') return Promise.resolve({ tenantId, organizationId, endpointId, channelId: null });
  const environment = query.environmentId ?? (query.environmentOf ? environmentId : undefined);
  return Promise.resolve({
    tenantId,
    organizationId,
    ...(environment ? { environmentId: environment } : {}),
    ...(query.domainId ? { domainId: query.domainId } : {}),
  });
};

/** A delivery schedule: the first attempt at once, then 200 ms and 400 ms (a Retry-After may lengthen a wait). */
const SCHEDULE_MS = [0, 200, 400];

/** The workflows to record, each made when the export starts (expiry times are from the clock of that moment). */
function scenarios(): Scenario[] {
  let entryId = 0;
  const start = <K extends ProcessKind>(kind: K, entityId: string, tenantId: string | null, input: ProcessInput<K>) =>
    ({ id: ++entryId, action: 'start', kind, processId: `${kind}:${entityId}`, tenantId, input }) as OutboxStart;

  // Started by a batch whose first attempt failed (as continueDeliveries enqueues it): attempt 2 gets 503 with
  // Retry-After: 1 (the 400 ms wait becomes 1 s), attempt 3 succeeds.
  const deliveryId = randomUUID();
  responses.set(deliveryId, { 2: [503, 1000], 3: [200] });

  // Three first attempts: one succeeds, one gets 503 with Retry-After: 1, one gets 500; two continue on their own.
  const batchId = randomUUID();
  batches.set(batchId, [
    { deliveryId: randomUUID(), statusCode: 200 },
    { deliveryId: randomUUID(), statusCode: 503, retryAfterMs: 1000 },
    { deliveryId: randomUUID(), statusCode: 500 },
  ]);

  // Resent (a new expiry, in the database and by signal) while the process waits, then expired at the new time.
  const invitationId = randomUUID();
  invitations.set(invitationId, Date.now() + 2000);

  // Its process wakes at the retiresAt of its start, finds the key not due yet (the database says 1.5 s later), retires it then.
  const keyId = randomUUID();
  const keyRetiresAt = Date.now() + 1000;
  retiringKeys.set(keyId, keyRetiresAt + 1500);

  const verifiedDomainId = randomUUID();
  verifiesAt.set(verifiedDomainId, 3); // two misses, then the TXT record is there
  const abandonedDomainId = randomUUID(); // never there: gives up after 1.5 s

  // One expires on its own at its time, one is revoked (by signal) while its process waits.
  const expiringGrantId = randomUUID();
  impersonationGrants.set(expiringGrantId, Date.now() + 1500);
  const revokedGrantId = randomUUID();
  impersonationGrants.set(revokedGrantId, Date.now() + 60_000);
  // A lifecycle change due in 1.5 s; a user is deprovisioned while the process sleeps until it; then idle, it ends.
  const environmentId = randomUUID();
  lifecycleChanges.set(environmentId, [Date.now() + 1500]);
  // Never decided: reminded at 1 s, escalated at 1.5 s, expired at 2 s.
  const requestId = randomUUID();
  const requestCreatedAt = Date.now();
  elevateRequests.set(requestId, requestCreatedAt + 2000);
  // Activated (a new end, by signal) while waiting for activation, then extended, then expired at its end.
  const grantId = randomUUID();
  elevateGrants.set(grantId, Date.now() + 3000);
  // Revoked while active.
  const revokedElevateGrantId = randomUUID();
  elevateGrants.set(revokedElevateGrantId, Date.now() + 60_000);
  // The first provider fails twice (unreachable, then still on its last attempt): failover; the second one sends it.
  const messageId = randomUUID();
  messageAttempts.set(messageId, ['retry', 'next', 'sent']);
  // DNS missing at the first look, found at the second, certificate issued; woken (removal) while it waits to renew.
  const vanityDomainId = randomUUID();
  vanitySteps.set(vanityDomainId, [
    { done: false, status: 'pending_dns', waitMs: 200 },
    { done: false, status: 'issuing', waitMs: 0 },
    { done: false, status: 'active', waitMs: 60_000 },
  ]);
  // The RP answers 503 to the first logout token, takes the second.
  const revokedSessionId = randomUUID();
  logoutAttempts.set(revokedSessionId, [
    { outcome: 'retry', statusCode: 503 },
    { outcome: 'sent', statusCode: 204 },
  ]);
  // A backlog of two batches in the first round, then a quiet second round; the run then continues as a new one.
  oidcBatches = 2;

  return [
    {
      fixture: 'webhook-delivery-retry-after',
      start: start('webhook-delivery', deliveryId, tenantId, { deliveryId, scheduleMs: SCHEDULE_MS, firstAttempt: 2, firstDelayMs: SCHEDULE_MS[1]! }),
      result: 'succeeded',
    },
    {
      fixture: 'delivery-batch-retries',
      start: start('delivery-batch', batchId, tenantId, { batchId, scheduleMs: SCHEDULE_MS }),
      result: { retrying: 2 },
    },
    {
      fixture: 'invitation-expiry-resent',
      start: start('invitation-expiry', invitationId, null, { invitationId, expiresAt: invitations.get(invitationId)! }),
      drive: async (gateway, client) => {
        const processId = `invitation-expiry:${invitationId}`;
        await waitFor(client, processId, (e) => !!e.timerStartedEventAttributes); // waiting for its expiry
        const expiresAt = Date.now() + 2000;
        invitations.set(invitationId, expiresAt);
        await gateway.signal('invitation-expiry', processId, 'invitation', { expiresAt });
      },
      result: 'expired',
    },
    {
      fixture: 'domain-verification-verified',
      start: start('domain-verification', verifiedDomainId, tenantId, { domainId: verifiedDomainId, intervalsMs: [200, 400], giveUpAfterMs: 60_000 }),
      result: 'verified',
    },
    {
      fixture: 'trust-store-key-retirement-rechecked',
      start: start('trust-store-key-retirement', keyId, tenantId, { keyId, retiresAt: keyRetiresAt }),
      result: 'retired',
    },
    {
      fixture: 'domain-verification-gave-up',
      start: start('domain-verification', abandonedDomainId, tenantId, { domainId: abandonedDomainId, intervalsMs: [300, 600], giveUpAfterMs: 1500 }),
      result: 'failed',
    },
    {
      fixture: 'impersonation-expiry-expired',
      start: start('impersonation-expiry', expiringGrantId, tenantId, { grantId: expiringGrantId, expiresAt: impersonationGrants.get(expiringGrantId)! }),
      result: 'expired',
    },
    {
      fixture: 'impersonation-expiry-revoked',
      start: start('impersonation-expiry', revokedGrantId, tenantId, { grantId: revokedGrantId, expiresAt: impersonationGrants.get(revokedGrantId)! }),
      drive: async (gateway, client) => {
        const processId = `impersonation-expiry:${revokedGrantId}`;
        await waitFor(client, processId, (e) => !!e.timerStartedEventAttributes); // waiting for its expiry
        impersonationGrants.delete(revokedGrantId);
        await gateway.signal('impersonation-expiry', processId, 'impersonation', { revoked: true });
      },
      result: 'revoked',
    },
    {
      fixture: 'directory-sync-deprovision-and-scheduled',
      start: start('directory-sync', environmentId, tenantId, { environmentId, idleMs: 300 }),
      drive: async (gateway, client) => {
        const processId = `directory-sync:${environmentId}`;
        await waitFor(client, processId, (e) => !!e.timerStartedEventAttributes); // waiting for the lifecycle change
        await gateway.signal('directory-sync', processId, 'directory', { type: 'deprovision', userId: randomUUID() });
      },
      result: 'idle',
    },
    {
      fixture: 'elevate-request-expired',
      start: start('elevate-request', requestId, tenantId, {
        requestId,
        createdAt: requestCreatedAt,
        expiresAt: elevateRequests.get(requestId)!,
        escalate: true,
      }),
      result: 'expired',
    },
    {
      fixture: 'elevate-grant-extended',
      start: start('elevate-grant', grantId, tenantId, { grantId, until: elevateGrants.get(grantId)! }),
      drive: async (gateway, client) => {
        const processId = `elevate-grant:${grantId}`;
        await waitFor(client, processId, (e) => !!e.timerStartedEventAttributes);
        elevateGrants.set(grantId, Date.now() + 1000);
        await gateway.signal('elevate-grant', processId, 'elevate-grant', { until: elevateGrants.get(grantId)! });
        elevateGrants.set(grantId, Date.now() + 1500);
        await gateway.signal('elevate-grant', processId, 'elevate-grant', { until: elevateGrants.get(grantId)! });
      },
      result: 'expired',
    },
    {
      fixture: 'elevate-grant-revoked',
      start: start('elevate-grant', revokedElevateGrantId, tenantId, { grantId: revokedElevateGrantId, until: elevateGrants.get(revokedElevateGrantId)! }),
      drive: async (gateway, client) => {
        const processId = `elevate-grant:${revokedElevateGrantId}`;
        await waitFor(client, processId, (e) => !!e.timerStartedEventAttributes);
        elevateGrants.delete(revokedElevateGrantId);
        await gateway.signal('elevate-grant', processId, 'elevate-grant', { revoked: true });
      },
      result: 'revoked',
    },
    {
      fixture: 'message-send-failed-over',
      start: start('message-send', messageId, tenantId, { messageId, providers: ['postmark', 'smtp'], scheduleMs: [0, 200] }),
      result: 'sent',
    },
    {
      fixture: 'back-channel-logout-retried',
      start: start('back-channel-logout', `${revokedSessionId}:client-app`, tenantId, {
        tenantId,
        environmentId,
        sessionId: revokedSessionId,
        clientId: 'client-app',
        sub: randomUUID(),
        sid: 'sid-1',
        issuer: `http://127.0.0.1:8080/v1/oidc/${environmentId}`,
        scheduleMs: [0, 200, 400],
      }),
      result: 'sent',
    },
    {
      fixture: 'vanity-domain-issued-and-removed',
      start: start('vanity-domain', vanityDomainId, tenantId, { domainId: vanityDomainId, dnsIntervalMs: 200, dnsGiveUpMs: 60_000, renewBeforeMs: 1000 }),
      drive: async (gateway, client) => {
        const processId = `vanity-domain:${vanityDomainId}`;
        await waitFor(client, processId, (e) => !!e.timerStartedEventAttributes && vanitySteps.get(vanityDomainId)?.length === 0);
        await gateway.signal('vanity-domain', processId, 'vanity-domain', { wake: true });
      },
      result: 'removed',
    },
    {
      fixture: 'oidc-cleanup-rounds',
      start: start('oidc-cleanup', 'iam', null, { intervalMs: 300, rounds: 2 }),
      result: 'continued',
    },
    {
      fixture: 'retention-rounds',
      start: start('retention', 'iam', null, {
        intervalMs: 300,
        rounds: 2,
        monthsAhead: 2,
        retentionMs: { events: 8.64e7, auditLogs: 8.64e7, decisions: 8.64e7 },
      }),
      result: 'continued',
    },
    {
      // Asked to sync now (POST …/billing/sync) while it waits out a long interval; after its two rounds it continues as a new run.
      fixture: 'billing-sync-requested',
      start: start('billing-sync', environmentId, tenantId, { environmentId, intervalMs: 60_000, rounds: 2 }),
      drive: async (gateway, client) => {
        const processId = `billing-sync:${environmentId}`;
        await waitFor(client, processId, (e) => !!e.timerStartedEventAttributes);
        await gateway.signal('billing-sync', processId, 'billing-sync', { requestedAt: Date.now() });
      },
      result: 'continued',
    },
  ];
}

type HistoryEvent = NonNullable<Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>['events']>[number];

/** Waits until the workflow's history has an event that `matches`. */
async function waitFor(client: Client, workflowId: string, matches: (event: HistoryEvent) => boolean) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { events } = await client.workflow.getHandle(workflowId).fetchHistory();
    if (events?.some(matches)) return;
    if (Date.now() > deadline) throw new Error(`${workflowId}: the awaited event is not in its history after 30 s`);
    await sleep(100);
  }
}

async function main() {
  const cli = findOrInstallTemporal((line) => console.log(line));
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const [server, { code }] = await Promise.all([startDevServer({ cli, port: await freePort() }), bundleWorkflows()]);
  console.log(`Temporal dev server at ${server.address}`);
  const closers: (() => Promise<void>)[] = [() => server.stop()];
  try {
    const connection = await NativeConnection.connect({ address: server.address });
    closers.unshift(() => connection.close());
    const client = new Client({ connection: await Connection.connect({ address: server.address }), namespace: server.namespace });
    closers.unshift(() => client.connection.close());
    const gateway = await createTemporalGateway({ address: server.address, namespace: server.namespace, scopeOf });
    closers.unshift(() => gateway.close());
    const worker = await Worker.create({
      connection,
      namespace: server.namespace,
      taskQueue: TASK_QUEUE,
      workflowBundle: { code },
      activities,
      sinks: workerSinks(),
    });

    const all = scenarios();
    await worker.runUntil(
      Promise.all(
        all.map(async ({ fixture, start, drive, result }) => {
          await gateway.start(start.kind, start.processId, start.input, { tenantId: start.tenantId });
          await drive?.(gateway, client);
          const got: unknown = await client.workflow.getHandle(start.processId).result();
          if (!isDeepStrictEqual(got, result)) throw new Error(`${fixture}: ended with ${JSON.stringify(got)}, not ${JSON.stringify(result)}`);
        }),
      ),
    );

    await fs.mkdir(HISTORIES_DIR, { recursive: true });
    for (const { fixture, start } of all) {
      const history = await client.workflow.getHandle(start.processId).fetchHistory();
      const file = path.join(HISTORIES_DIR, `${fixture}.json`);
      await fs.writeFile(file, `${historyToJSON(history)}\n`);
      console.log(`${path.relative(process.cwd(), file)}: ${history.events?.length ?? 0} events`);
    }
  } finally {
    for (const close of closers) await close();
  }
}

await main();
