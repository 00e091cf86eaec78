// OpenTelemetry traces through the Temporal shape: with tracing on, one PATCH's trace runs through the dispatcher's
// outbox step, the start of the delivery workflow (Temporal's client interceptor), the workflow run and its scheduling
// of the batch activity (the bundled workflow interceptors, whose spans leave the sandbox through a sink), the activity
// and the delivery's HTTP request, each span a child of the one before, as exported over OTLP/HTTP to a real local
// receiver. The provider is process-wide, hence a file of its own (in the `waits` project). Runs on the test run's
// Temporal dev server; skipped with the Temporal suites.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { exportedSpans, otlpExports, spanAttribute, tracedDelivery, type OtlpSpan } from '../helpers/otlp.ts';
import { startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { startTelemetry, type Telemetry } from '../../lib/telemetry.ts';
import { workflowTypes } from '../../workflows/temporal.ts';

const server = inject('temporal');
const title = server ? 'traces (Temporal)' : 'traces (Temporal): skipped (no Temporal CLI: see the first lines of the run)';

describe.skipIf(!server)(title, () => {
  let otlp: Receiver;
  let hooks: Receiver;
  let telemetry: Telemetry | undefined;
  let t: TestAppWithProcesses;
  beforeAll(async () => {
    otlp = await startReceiver();
    hooks = await startReceiver();
    // Before the worker and its client are made: they take Temporal's interceptors only with tracing on.
    telemetry = await startTelemetry({ endpoint: otlp.url, serviceName: 'iam-worker-test' });
    t = await startTestAppWithProcesses({ engine: 'temporal' });
  });
  afterAll(async () => {
    await t?.close();
    await telemetry?.shutdown();
    await otlp?.close();
    await hooks?.close();
  });

  it('joins the request, the outbox, the workflow, its activity and the delivery attempt in one trace', async () => {
    const { traceId, chain } = await tracedDelivery(t, hooks, otlp, telemetry!, 20_000);
    const type = workflowTypes['delivery-batch'];
    await expect
      .poll(chain, { timeout: 15_000, interval: 100 })
      .toEqual([
        'PATCH /v1/tenants/:tenantId',
        'outbox start delivery-batch',
        `StartWorkflow:${type}`,
        `RunWorkflow:${type}`,
        'StartActivity:attemptBatch',
        'RunActivity:attemptBatch',
        'POST',
      ]);

    // The workflow's spans (made in the sandbox) carry its ids and go out under the worker's resource, as the others.
    const spans = exportedSpans(otlp).filter((s) => s.traceId === traceId);
    const run = spans.find((s) => s.name === `RunWorkflow:${type}`);
    expect(spanAttribute(run, 'temporalWorkflowId')).toMatch(/^delivery-batch:/);
    expect(spanAttribute(run, 'run_id')).toMatch(/^[0-9a-f-]{36}$/);
    const runExport = otlpExports(otlp)
      .flatMap((e) => e.resourceSpans)
      .find((rs) => rs.scopeSpans.some((s) => s.spans.some((x) => x.spanId === run?.spanId)));
    expect(spanAttribute({ attributes: runExport?.resource.attributes ?? [] } as OtlpSpan, 'service.name')).toBe('iam-worker-test');
    expect(runExport?.scopeSpans.find((s) => s.spans.some((x) => x.spanId === run?.spanId))?.scope.name).toBe('@temporalio/interceptor-workflow');
  });
});
