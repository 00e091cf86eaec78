// OpenTelemetry traces end to end: with tracing on, one PATCH's trace runs through the event it wrote, the
// dispatcher's outbox step, the delivery process, its activity and the delivery's HTTP request, each span a child
// of the one before, as exported over OTLP/HTTP to a real local receiver. Embedded engine (the Temporal shape:
// test/temporal/traces.test.ts). The provider is process-wide, hence this file in the `waits` project.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { inSpan, startTelemetry, traceLogFields, type Telemetry } from '../../lib/telemetry.ts';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: { stringValue?: string; intValue?: number | string } }[];
}

const exported = (otlp: Receiver): OtlpSpan[] =>
  otlp.received
    .filter((r) => r.path === '/v1/traces')
    .flatMap((r) => (JSON.parse(r.body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }).resourceSpans)
    .flatMap((rs) => rs.scopeSpans.flatMap((s) => s.spans));
const attribute = (span: OtlpSpan | undefined, key: string) => span?.attributes.find((a) => a.key === key)?.value.stringValue;

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
    const token = await t.token();
    const base = `/v1/tenants/${t.credentials.tenantId}`;
    const created = await t.app.inject({
      method: 'POST',
      url: `${base}/webhooks`,
      headers: bearer(token),
      payload: { url: `${hooks.url}/traced`, eventTypes: ['tenant.updated'] },
    });
    expect(created.statusCode).toBe(201);
    const patched = await t.app.inject({ method: 'PATCH', url: base, headers: bearer(token), payload: { description: 'traced' } });
    expect(patched.statusCode).toBe(200);
    await expect.poll(() => hooks.received.filter((r) => r.path === '/traced').length, { timeout: 15_000, interval: 50 }).toBe(1);

    // The delivery carries the trace on (W3C traceparent), and so does the request span's id in the log line's traceId.
    const traceparent = String(hooks.received.find((r) => r.path === '/traced')?.headers.traceparent);
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const traceId = traceparent.split('-')[1];

    const chain = async () => {
      await telemetry!.flush();
      const spans = exported(otlp).filter((s) => s.traceId === traceId);
      const byId = new Map(spans.map((s) => [s.spanId, s]));
      const names: string[] = [];
      for (let s = spans.find((x) => x.spanId === traceparent.split('-')[2]); s; s = s.parentSpanId ? byId.get(s.parentSpanId) : undefined) {
        names.unshift(s.name);
      }
      return names;
    };
    await expect
      .poll(chain, { timeout: 10_000, interval: 100 })
      .toEqual(['PATCH /v1/tenants/:tenantId', 'outbox start delivery-batch', 'process delivery-batch', expect.stringMatching(/^activity /), 'POST']);

    const spans = exported(otlp).filter((s) => s.traceId === traceId);
    const request = spans.find((s) => s.name === 'PATCH /v1/tenants/:tenantId');
    expect(attribute(request, 'http.route')).toBe('/v1/tenants/:tenantId');
    expect(attribute(request, 'iam.tenant_id')).toBe(t.credentials.tenantId);
    // Its queries are spans of their own, children of the request span.
    expect(spans.filter((s) => s.parentSpanId === request?.spanId && s.name.startsWith('pg ')).length).toBeGreaterThan(0);
  });

  it('puts the active trace id on log lines (pino mixin)', async () => {
    const fields = await inSpan('logged', async (span) => ({ fields: traceLogFields(), traceId: span?.spanContext().traceId }));
    expect(fields.fields).toEqual({ traceId: fields.traceId, spanId: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(traceLogFields()).toEqual({});
  });
});
