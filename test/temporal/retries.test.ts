// Activity retries on a real Temporal server: the policy the server schedules activities with has no attempt cap
// and a maximum interval (an outage of any length delays a process, never fails it), and a programming error
// fails the activity at once, without a retry. Runs on the test run's Temporal dev server; skipped with the Temporal suites.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bundleWorkflows } from '../../worker/bundle.ts';
import { createTemporalGateway, type TemporalGateway } from '../../worker/temporal-gateway.ts';
import { workerSinks } from '../../worker/temporal-telemetry.ts';
import type { Activities } from '../../workflows/activities.ts';
import { activityProgressInterceptor, temporalActivityProgress } from '../../worker/temporal-activity-context.ts';

// The run's Temporal dev server (test/setup/temporal.ts), or null when the Temporal suites are skipped.
const server = inject('temporal');
const address = server?.address;
const namespace = server?.namespace ?? 'default';
const title = address
  ? `activity retries on Temporal at ${address}`
  : 'activity retries on Temporal: skipped (no Temporal CLI: see the first lines of the run)';

describe.skipIf(!address)(title, () => {
  const taskQueue = `iam-test-${randomUUID()}`;
  const calls = new Map<string, number>();
  /** `outage-…` fails twice as a lost database connection would, then expires; `bug-…` throws a TypeError. */
  const activities = {
    expireInvitation: ({ invitationId }: { invitationId: string }) => {
      const n = (calls.get(invitationId) ?? 0) + 1;
      calls.set(invitationId, n);
      if (invitationId.startsWith('once-bug') && n === 1) return Promise.reject(new TypeError('x is not a function'));
      if (invitationId.startsWith('once-bug')) return Promise.resolve({ outcome: 'expired' as const });
      if (invitationId.startsWith('bug')) return Promise.reject(new TypeError("Cannot read properties of undefined (reading 'expiresAt')"));
      if (n <= 2) return Promise.reject(new Error('Connection terminated unexpectedly'));
      return Promise.resolve({ outcome: 'expired' as const });
    },
    // A batch: sees the running activity's heartbeat and cancellation through the worker's interceptor.
    attemptBatch: () => {
      const progress = temporalActivityProgress();
      progress?.heartbeat({ recorded: 0 });
      batchSawProgress = progress?.signal instanceof AbortSignal;
      return Promise.resolve([]);
    },
  } as unknown as Activities;
  let batchSawProgress = false;
  let connection: NativeConnection, gateway: TemporalGateway, client: Client, workflowBundle: { code: string };
  /** A worker runs once: each test runs its own while `fn` runs. */
  const withWorker = async (fn: () => Promise<void>) =>
    (
      await Worker.create({
        connection,
        namespace,
        taskQueue,
        workflowBundle,
        activities,
        interceptors: { activity: [activityProgressInterceptor] },
        sinks: workerSinks(),
      })
    ).runUntil(fn);

  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    connection = await NativeConnection.connect({ address: address! });
    workflowBundle = await bundleWorkflows();
    gateway = await createTemporalGateway({ address: address!, namespace, taskQueue });
    client = new Client({ connection: await Connection.connect({ address: address! }), namespace });
  });

  afterAll(async () => {
    await gateway?.close();
    await client?.connection.close();
    await connection?.close();
  });

  const scheduledAndFailed = async (workflowId: string) => {
    const { events } = await client.workflow.getHandle(workflowId).fetchHistory();
    return {
      policy: events?.find((e) => e.activityTaskScheduledEventAttributes)?.activityTaskScheduledEventAttributes?.retryPolicy,
      failures: (events ?? []).filter((e) => e.activityTaskFailedEventAttributes).map((e) => e.activityTaskFailedEventAttributes?.retryState),
    };
  };

  it('retry infrastructure failures without an attempt cap, at most a minute apart', async () => {
    const id = `outage-${randomUUID()}`;
    const workflowId = `invitation-expiry:${id}`;
    await withWorker(async () => {
      await gateway.start('invitation-expiry', workflowId, { invitationId: id, expiresAt: 0 }, { tenantId: null });
      expect(await client.workflow.getHandle(workflowId).result()).toBe('expired');
    });
    expect(calls.get(id)).toBe(3);
    const { policy } = await scheduledAndFailed(workflowId);
    expect(policy?.maximumAttempts ?? 0).toBe(0); // 0: no cap
    expect(Number(policy?.maximumInterval?.seconds)).toBe(60);
    expect(policy?.nonRetryableErrorTypes).toEqual(expect.arrayContaining(['TypeError', 'ReferenceError', 'ZodError']));
  });

  it('fail a programming error at once: one attempt, then the process fails', async () => {
    const id = `bug-${randomUUID()}`;
    const workflowId = `invitation-expiry:${id}`;
    await withWorker(async () => {
      await gateway.start('invitation-expiry', workflowId, { invitationId: id, expiresAt: 0 }, { tenantId: null });
      await expect(client.workflow.getHandle(workflowId).result()).rejects.toThrow();
    });
    expect(calls.get(id)).toBe(1);
    expect(await gateway.describe(workflowId)).toEqual({ processId: workflowId, status: 'failed' });
    // One failed activity task, not retried because its failure is non-retryable (RETRY_STATE_NON_RETRYABLE_FAILURE).
    expect((await scheduledAndFailed(workflowId)).failures).toEqual([2]);
  });

  it('restart a failed process on a new start (ALLOW_DUPLICATE_FAILED_ONLY), and never a completed one', async () => {
    const id = `once-bug-${randomUUID()}`;
    const workflowId = `invitation-expiry:${id}`;
    const handle = client.workflow.getHandle(workflowId);
    const start = () => gateway.start('invitation-expiry', workflowId, { invitationId: id, expiresAt: 0 }, { tenantId: null });
    await withWorker(async () => {
      await start();
      await expect(handle.result()).rejects.toThrow();
      const failedRun = (await handle.describe()).runId;
      await start(); // what the sweeper's restart does
      expect(await client.workflow.getHandle(workflowId).result()).toBe('expired');
      expect((await handle.describe()).runId).not.toBe(failedRun);
    });
    const completedRun = (await handle.describe()).runId;
    await start();
    expect((await handle.describe()).runId).toBe(completedRun);
    expect(await gateway.describe(workflowId)).toEqual({ processId: workflowId, status: 'completed' });
    expect(calls.get(id)).toBe(2);
  });

  it('give a delivery batch a heartbeat timeout, and its activity the heartbeat and cancellation of Temporal', async () => {
    const batchId = randomUUID();
    const workflowId = `delivery-batch:${batchId}`;
    await withWorker(async () => {
      await gateway.start('delivery-batch', workflowId, { batchId, scheduleMs: [0, 1000] }, { tenantId: null });
      expect(await client.workflow.getHandle(workflowId).result()).toEqual({ retrying: 0 });
    });
    expect(batchSawProgress).toBe(true);
    const { events } = await client.workflow.getHandle(workflowId).fetchHistory();
    const scheduled = events?.find((e) => e.activityTaskScheduledEventAttributes)?.activityTaskScheduledEventAttributes;
    expect(scheduled?.activityType?.name).toBe('attemptBatch');
    expect(Number(scheduled?.heartbeatTimeout?.seconds)).toBe(30);
    expect(Number(scheduled?.startToCloseTimeout?.seconds)).toBe(120);
  });
});
