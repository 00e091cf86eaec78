// The bundle check (DESIGN §4): workflow code is bundled with Temporal's webpack bundler exactly as a worker
// would at start, so a forbidden import anywhere under workflows/ fails here instead of crash-looping a worker.
// Then the bundle runs in Temporal's sandbox, offline, by replaying a delivery's history written by hand as it was
// recorded before the `delivery-search-attributes` patch (no marker, no upserts): the old branch of that patch,
// which the histories exported from a real server (replay.test.ts, recorded with the current code) do not take.
import fs from 'node:fs/promises';
import path from 'node:path';
import proto from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleWorkflows } from '../../worker/bundle.ts';
import { workerSinks } from '../../worker/temporal-telemetry.ts';
import { processes } from '../../workflows/index.ts';
import { workflowTypes } from '../../workflows/temporal.ts';

/** The history a server records for a delivery whose first attempt fails and second, 200 ms later, succeeds. */
function deliveryHistory() {
  let id = 0;
  const json = (value: unknown) => ({ payloads: [{ metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from(JSON.stringify(value)) }] });
  const event = (type: string, attributes: Record<string, unknown>) => {
    const key = `${type.toLowerCase().replace(/_(\w)/g, (_m, c: string) => c.toUpperCase())}EventAttributes`;
    return { eventId: ++id, eventTime: { seconds: 1_767_225_600 }, eventType: `EVENT_TYPE_${type}`, [key]: attributes };
  };
  const workflowTask = () => [
    event('WORKFLOW_TASK_SCHEDULED', { taskQueue: { name: 'iam' }, startToCloseTimeout: { seconds: 10 }, attempt: 1 }),
    event('WORKFLOW_TASK_STARTED', { scheduledEventId: id }),
    event('WORKFLOW_TASK_COMPLETED', { scheduledEventId: id - 1, startedEventId: id }),
  ];
  const attempt = (activityId: string, result: unknown) => [
    event('ACTIVITY_TASK_SCHEDULED', {
      activityId,
      activityType: { name: 'attemptDelivery' },
      taskQueue: { name: 'iam' },
      workflowTaskCompletedEventId: id,
      startToCloseTimeout: { seconds: 120 },
    }),
    event('ACTIVITY_TASK_STARTED', { scheduledEventId: id, attempt: 1 }),
    event('ACTIVITY_TASK_COMPLETED', { scheduledEventId: id - 1, startedEventId: id, result: json(result) }),
  ];
  return proto.temporal.api.history.v1.History.fromObject({
    events: [
      event('WORKFLOW_EXECUTION_STARTED', {
        workflowType: { name: workflowTypes['webhook-delivery'] },
        taskQueue: { name: 'iam' },
        workflowTaskTimeout: { seconds: 10 },
        attempt: 1,
        input: json({ deliveryId: 'd1', scheduleMs: [0, 200] }),
        originalExecutionRunId: 'run',
        firstExecutionRunId: 'run',
      }),
      ...workflowTask(),
      ...attempt('1', { done: false, nextDelayMs: 200 }),
      ...workflowTask(),
      event('TIMER_STARTED', { timerId: '1', startToFireTimeout: { nanos: 200_000_000 }, workflowTaskCompletedEventId: id }),
      event('TIMER_FIRED', { timerId: '1', startedEventId: id }),
      ...workflowTask(),
      ...attempt('2', { done: true, status: 'succeeded' }),
      ...workflowTask(),
      event('WORKFLOW_EXECUTION_COMPLETED', { result: json('succeeded'), workflowTaskCompletedEventId: id }),
    ],
  });
}

describe('workflow bundle', { timeout: 60_000 }, () => {
  let code: string;
  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    ({ code } = await bundleWorkflows());
  });

  it('bundles workflows/temporal.ts with a workflow for every process kind', () => {
    expect(Object.keys(workflowTypes).sort()).toEqual(Object.keys(processes).sort());
    for (const type of Object.values(workflowTypes)) expect(code).toContain(type);
    // One default export runs every kind, picked by workflow type: two kinds may not share one.
    expect(new Set(Object.values(workflowTypes)).size).toBe(Object.keys(workflowTypes).length);
  });

  it('runs a delivery in the workflow sandbox: an attempt, a timer, an attempt, as the history recorded them', async () => {
    await expect(Worker.runReplayHistory({ workflowBundle: { code }, sinks: workerSinks() }, deliveryHistory())).resolves.toBeUndefined();
  });

  // Written inside the repository so that the bundler resolves @temporalio/workflow from its node_modules.
  let dir: string | undefined;
  afterAll(async () => {
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it('fails when workflow code imports a Node built-in', async () => {
    dir = await fs.mkdtemp(path.join(import.meta.dirname, '.forbidden-'));
    const file = path.join(dir, 'workflows.ts');
    await fs.writeFile(file, "import fs from 'node:fs';\nexport async function leaky(): Promise<boolean> {\n  return fs.existsSync('/');\n}\n");
    await expect(bundleWorkflows({ workflowsPath: file, logLevel: 'ERROR' })).rejects.toThrow(/importing the following disallowed modules:\s+- 'fs'/);
  });
});
