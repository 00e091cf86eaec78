// OpenTelemetry traces end to end: with tracing on, one PATCH's trace runs through the event it wrote, the
// dispatcher's outbox step, the delivery process, its activity and the delivery's HTTP request, each span a child
// of the one before, as exported over OTLP/HTTP to a real local receiver. Embedded engine (the Temporal shape:
// test/temporal/traces.test.ts). The provider is process-wide, hence this file in the `waits` project.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportedSpans, spanAttribute, tracedDelivery } from '../helpers/otlp.ts';
import { startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { inSpan, startTelemetry, traceLogFields, type Telemetry } from '../../lib/telemetry.ts';

describe('traces (embedded engine)', () => {
  let otlp: Receiver;
  let hooks: Receiver;
  let telemetry: Telemetry | undefined;
  let t: TestAppWithProcesses;
  beforeAll(async () => {
    otlp = await startReceiver();
    hooks = await startReceiver();
    telemetry = await startTelemetry({ endpoint: otlp.url, serviceName: 'iam-test' });
    t = await startTestAppWithProcesses({ engine: 'embedded' });
  });
  afterAll(async () => {
    await t?.close();
    await telemetry?.shutdown();
    await otlp.close();
    await hooks.close();
  });

  it('joins the request, the outbox, the delivery process, its activity and the delivery attempt in one trace', async () => {
    const { traceId, chain } = await tracedDelivery(t, hooks, otlp, telemetry!, 15_000);
    await expect
      .poll(chain, { timeout: 10_000, interval: 100 })
      .toEqual(['PATCH /v1/tenants/:tenantId', 'outbox start delivery-batch', 'process delivery-batch', expect.stringMatching(/^activity /), 'POST']);

    const spans = exportedSpans(otlp).filter((s) => s.traceId === traceId);
    const request = spans.find((s) => s.name === 'PATCH /v1/tenants/:tenantId');
    expect(spanAttribute(request, 'http.route')).toBe('/v1/tenants/:tenantId');
    expect(spanAttribute(request, 'iam.tenant_id')).toBe(t.credentials.tenantId);
    // Its queries are spans of their own, children of the request span.
    expect(spans.filter((s) => s.parentSpanId === request?.spanId && s.name.startsWith('pg ')).length).toBeGreaterThan(0);
  });

  it('puts the active trace id on log lines (pino mixin)', async () => {
    const fields = await inSpan('logged', async (span) => ({ fields: traceLogFields(), traceId: span?.spanContext().traceId }));
    expect(fields.fields).toEqual({ traceId: fields.traceId, spanId: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(traceLogFields()).toEqual({});
  });
});
