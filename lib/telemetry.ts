// OpenTelemetry traces, off unless OTEL_EXPORTER_OTLP_ENDPOINT is set: then the SDK is loaded (dynamic imports, so
// nothing of it is loaded or costs anything otherwise) and spans go over OTLP/HTTP. Request spans (api/telemetry.ts),
// query spans (db/pool.ts) and outbound HTTP (undici's diagnostics channels) need no module patching, so this may
// start after the modules load. The W3C trace context crosses the database in `trace_context` columns (events,
// process_outbox: migration 0058), so the dispatcher, the processes and their activities join the request's trace.
import { context, propagation, trace, type Context, type Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-node';

export const tracer = trace.getTracer('iam-service');
let enabled = false;
let exporting: { processor: SpanProcessor; resource: Resource } | undefined;

/** Whether tracing is on (startTelemetry ran with an endpoint): callers skip all tracing work otherwise. */
export const tracingEnabled = () => enabled;

export interface TelemetryOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL (`/v1/traces` is appended) */
  endpoint: string | undefined;
  /** OTEL_SERVICE_NAME */
  serviceName: string;
}

export interface Telemetry {
  /** Exports what is buffered (tests wait on it) */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Starts tracing when an endpoint is given; one at a time per process (the API's globals). */
export async function startTelemetry(options: TelemetryOptions): Promise<Telemetry | undefined> {
  if (!options.endpoint) return undefined;
  const [{ NodeTracerProvider, BatchSpanProcessor }, { resourceFromAttributes }, { UndiciInstrumentation }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/instrumentation-undici'),
  ]);
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  // OTLP/HTTP with JSON bodies, which every OTLP receiver accepts (Collector, Jaeger, Tempo).
  const exporter = new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/$/, '')}/v1/traces` });
  const resource = resourceFromAttributes({ 'service.name': options.serviceName });
  const processor = new BatchSpanProcessor(exporter, { scheduledDelayMillis: 500 });
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register(); // the global tracer provider, AsyncLocalStorage context manager and W3C propagator
  const undici = new UndiciInstrumentation();
  undici.setTracerProvider(provider);
  undici.enable();
  enabled = true;
  exporting = { processor, resource };
  return {
    flush: () => provider.forceFlush(),
    shutdown: async () => {
      enabled = false;
      exporting = undefined;
      undici.disable();
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/**
 * Exports spans ended elsewhere (the Temporal workflow sandbox's, which has a tracer of its own) with this process's,
 * under its resource (`service.name`); a no-op when tracing is off.
 */
export function exportSpans(spans: (resource: Resource) => ReadableSpan[]) {
  if (!exporting) return;
  for (const span of spans(exporting.resource)) exporting.processor.onEnd(span);
}

/** The active span's W3C `traceparent` (to store beside work done later), or null when tracing is off. */
export function currentTraceparent(): string | null {
  if (!enabled) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/** The context whose parent is `traceparent` (from currentTraceparent), or the active one. */
export const contextFrom = (traceparent: string | null | undefined): Context =>
  traceparent ? propagation.extract(context.active(), { traceparent }) : context.active();

/** Runs `fn` in a span (a child of `traceparent` when given, else of the active span); just `fn` when tracing is off. */
export function inSpan<T>(
  name: string,
  fn: (span: Span | undefined) => Promise<T>,
  options: { traceparent?: string | null; attributes?: Record<string, string | number>; kind?: SpanKind } = {},
): Promise<T> {
  if (!enabled) return fn(undefined);
  const parent = contextFrom(options.traceparent);
  return tracer.startActiveSpan(name, { attributes: options.attributes, kind: options.kind ?? SpanKind.INTERNAL }, parent, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Pino's mixin: the active span's ids on each log line (set only when tracing is on). */
export function traceLogFields(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

/** Pino options adding `traceId` to log lines when tracing is on (nothing otherwise). */
export const traceLogOptions = () => (enabled ? { mixin: traceLogFields } : {});
