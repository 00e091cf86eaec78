// The Temporal worker's own metrics (WORKER_METRICS_PORT): the processes it runs are counted when they end, per kind,
// completed or failed, as the embedded engine counts them, from the bundled workflow interceptor through its sink.
// Tracing is off here: a start then carries no trace context. Runs on the test run's Temporal dev server; skipped
// with the Temporal suites.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startMetricsListener } from '../../lib/metrics/listener.ts';
import { createWorkerRegistry } from '../../lib/metrics/worker-registry.ts';
import { freePort } from '../../scripts/temporal-cli.ts';
import { startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';

const server = inject('temporal');
const title = server
  ? 'the Temporal worker counts process ends'
  : 'the Temporal worker counts process ends: skipped (no Temporal CLI: see the first lines of the run)';

describe.skipIf(!server)(title, () => {
  const failing = new Set<string>();
  let t: TestAppWithProcesses, listener: { close(): Promise<void> }, client: Client, metricsUrl: string;

  beforeAll(async () => {
    const metrics = createWorkerRegistry();
    const port = await freePort();
    listener = await startMetricsListener(metrics, { host: '127.0.0.1', port }, (error) => console.error(error));
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    t = await startTestAppWithProcesses({
      engine: 'temporal',
      metrics: metrics.processes,
      // An invitation id in `failing` meets a programming error: one attempt, then the process fails.
      wrapActivities: (activities) => ({
        ...activities,
        expireInvitation: (input) =>
          failing.has(input.invitationId) ? Promise.reject(new TypeError('invitation is undefined')) : activities.expireInvitation(input),
      }),
    });
    client = new Client({ connection: await Connection.connect({ address: server!.address }), namespace: server!.namespace });
  });

  afterAll(async () => {
    await t?.close();
    await client?.connection.close();
    await listener?.close();
  });

  const scrape = async () => (await fetch(metricsUrl)).text();
  const count = (text: string, name: string, kind: string) => Number(new RegExp(`^${name}\\{kind="${kind}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  const expire = async (invitationId: string) => {
    const processId = `invitation-expiry:${invitationId}`;
    await t.processes.gateway.start('invitation-expiry', processId, { invitationId, expiresAt: 0 }, { tenantId: null });
    return processId;
  };

  it('shows a completed and a failed process on GET /metrics, per kind', async () => {
    const before = await scrape();
    const completed = await expire(randomUUID());
    const broken = randomUUID();
    failing.add(broken);
    const failed = await expire(broken);

    await expect.poll(() => t.processStatus(completed), { timeout: 15_000, interval: 100 }).toBe('completed');
    await expect.poll(() => t.processStatus(failed), { timeout: 15_000, interval: 100 }).toBe('failed');
    const counted = async () => {
      const text = await scrape();
      return {
        completed: count(text, 'iam_process_completions_total', 'invitation-expiry') - count(before, 'iam_process_completions_total', 'invitation-expiry'),
        failed: count(text, 'iam_process_failures_total', 'invitation-expiry') - count(before, 'iam_process_failures_total', 'invitation-expiry'),
      };
    };
    await expect.poll(counted, { timeout: 5_000, interval: 50 }).toEqual({ completed: 1, failed: 1 });
    expect(await scrape()).toMatch(/^# HELP iam_process_failures_total Processes that ended in failure, per process kind$/m);

    // With tracing off, the start carries no trace context (nothing for the workflow's interceptors to continue).
    const { events } = await client.workflow.getHandle(completed).fetchHistory();
    const started = events?.find((e) => e.workflowExecutionStartedEventAttributes)?.workflowExecutionStartedEventAttributes;
    expect(Object.keys(started?.header?.fields ?? {})).toEqual([]);
  });
});
