// Versioning check: every history recorded on a real Temporal server (test/fixtures/workflow-histories/, written by
// `npm run workflows:export-histories`) replays against the current workflow code, offline. A change that alters
// the commands a running workflow issues (a new sleep, activity or upsert) without a `patched()` guard makes
// its replay fail with a DeterminismViolationError, here rather than in the workflows running in production.
import fs from 'node:fs/promises';
import path from 'node:path';
import { DefaultLogger, Runtime, Worker, type ReplayResult } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { historyFromJSON } from '../../scripts/history-json.ts';
import { bundleWorkflows } from '../../worker/bundle.ts';
import { workerSinks } from '../../worker/temporal-telemetry.ts';
import { workflowTypes } from '../../workflows/temporal.ts';

const dir = path.resolve(import.meta.dirname, '../fixtures/workflow-histories');
const fixtures = (await fs.readdir(dir)).filter((f) => f.endsWith('.json')).sort();

describe('replay of recorded workflow histories', { timeout: 60_000 }, () => {
  const histories = new Map<string, ReturnType<typeof historyFromJSON>>();
  const replayed = new Map<string, ReplayResult>();

  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    for (const fixture of fixtures) histories.set(fixture, historyFromJSON(JSON.parse(await fs.readFile(path.join(dir, fixture), 'utf8'))));
    const { code } = await bundleWorkflows();
    // One replay worker for all of them; a fixture's name is its workflow id, so each result names its fixture.
    const results = Worker.runReplayHistories(
      { workflowBundle: { code }, sinks: workerSinks() },
      [...histories].map(([workflowId, history]) => ({ workflowId, history })),
    );
    for await (const result of results) replayed.set(result.workflowId, result);
  }, 120_000);

  it('has a recorded history of every process kind', () => {
    const recorded = new Set(
      [...histories.values()].map((h) => h.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name).filter((name) => name !== undefined),
    );
    expect([...recorded].sort()).toEqual(Object.values(workflowTypes).sort());
  });

  it.each(fixtures)('replays %s against the current workflow code', (fixture) => {
    const result = replayed.get(fixture);
    expect(result, `${fixture} was not replayed`).toBeDefined();
    const error = result?.error;
    expect(error, `${fixture}: ${error?.name}: ${error?.message}`).toBeUndefined();
  });
});
