// Reading what a local OTLP/HTTP receiver got (test/helpers/receiver.ts), and the traced delivery both trace suites
// follow (test/processes/traces.test.ts on the embedded engine, test/temporal/traces.test.ts on Temporal).
import { expect } from 'vitest';
import { bearer } from './app.ts';
import type { TestAppWithProcesses } from './processes.ts';
import type { Receiver } from './receiver.ts';
import type { Telemetry } from '../../lib/telemetry.ts';

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: { stringValue?: string; intValue?: number | string } }[];
}

export interface OtlpExport {
  resourceSpans: { resource: { attributes: OtlpSpan['attributes'] }; scopeSpans: { scope: { name: string }; spans: OtlpSpan[] }[] }[];
}

export const otlpExports = (otlp: Receiver) => otlp.received.filter((r) => r.path === '/v1/traces').map((r) => JSON.parse(r.body) as OtlpExport);
export const exportedSpans = (otlp: Receiver): OtlpSpan[] =>
  otlpExports(otlp).flatMap((e) => e.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((s) => s.spans)));
export const spanAttribute = (span: OtlpSpan | undefined, key: string) => span?.attributes.find((a) => a.key === key)?.value.stringValue;

/**
 * Subscribes `hooks` to `tenant.updated`, updates the tenant and waits for the delivery. Returns the delivery's trace
 * id and `chain`, which flushes the exporter and names the spans from the trace's root down to the delivery's POST.
 */
export async function tracedDelivery(t: TestAppWithProcesses, hooks: Receiver, otlp: Receiver, telemetry: Telemetry, timeoutMs: number) {
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
  await expect.poll(() => hooks.received.filter((r) => r.path === '/traced').length, { timeout: timeoutMs, interval: 50 }).toBe(1);

  // The delivery carries the trace on (W3C traceparent): its parent is the span of the attempt's POST.
  const traceparent = String(hooks.received.find((r) => r.path === '/traced')?.headers.traceparent);
  expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  const [, traceId = '', postSpanId] = traceparent.split('-');
  const chain = async () => {
    await telemetry.flush();
    const spans = exportedSpans(otlp).filter((s) => s.traceId === traceId);
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const names: string[] = [];
    for (let s = spans.find((x) => x.spanId === postSpanId); s; s = s.parentSpanId ? byId.get(s.parentSpanId) : undefined) names.unshift(s.name);
    return names;
  };
  return { traceId, chain };
}
