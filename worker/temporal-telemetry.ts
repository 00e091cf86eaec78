// Traces and process-end metrics on a Temporal worker, with @temporalio/interceptors-opentelemetry when tracing is on
// (lib/telemetry.ts; nothing of the package is loaded otherwise): the dispatcher's client puts the active context (the
// outbox span) in a workflow's start headers, the bundled workflow interceptors (workflows/tracing-interceptors.ts)
// continue it in the sandbox and hand it to each activity in its headers, and the activity interceptor continues it
// around the activity, so its outbound HTTP (undici) joins the same trace.
//
// The package builds on @opentelemetry/sdk-trace-base 1.x and the service on 2.x. The worker side of the package uses
// only the global @opentelemetry/api, so its activity and client spans go to the service's tracer provider as they are.
// The workflow spans are made by a 1.x tracer inside the sandbox and come out through a sink as 1.x-shaped spans
// (`parentSpanId`, `instrumentationLibrary`): its makeWorkflowExporter would pass them on as they are, which a 2.x
// exporter reads without their parent (`parentSpanContext`) and scope (`instrumentationScope`), and it copies the whole
// workflow info into their attributes. So the sink here rebuilds them as 2.x spans for the service's span processor.
import { createTraceState } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import type { ClientInterceptors } from '@temporalio/client';
import type { OpenTelemetrySinks, SerializableSpan } from '@temporalio/interceptors-opentelemetry';
import type { WorkflowInfo } from '@temporalio/workflow';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import { NO_PROCESS_METRICS, type ProcessMetrics } from '../lib/metrics/processes.ts';
import { exportSpans, tracingEnabled } from '../lib/telemetry.ts';
import type { ProcessSinks } from '../workflows/metrics-interceptor.ts';
import { workflowTypes } from '../workflows/temporal.ts';

/** The Temporal client's interceptors: a span around each start and signal, its context in the workflow's headers. */
export async function tracingClientInterceptors(): Promise<ClientInterceptors | undefined> {
  if (!tracingEnabled()) return undefined;
  const { OpenTelemetryWorkflowClientInterceptor } = await import('@temporalio/interceptors-opentelemetry/lib/client/index.js');
  return { workflow: [new OpenTelemetryWorkflowClientInterceptor()] };
}

/** The activity interceptors: each activity in a span, a child of the context its workflow scheduled it with. */
export async function tracingActivityInterceptors(): Promise<ActivityInterceptorsFactory[]> {
  if (!tracingEnabled()) return [];
  const { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } =
    await import('@temporalio/interceptors-opentelemetry/lib/worker/index.js');
  return [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx), outbound: new OpenTelemetryActivityOutboundInterceptor(ctx) })];
}

const kindOf = new Map(Object.entries(workflowTypes).map(([kind, type]) => [type, kind]));

/**
 * The sinks the bundled workflow interceptors call: process ends into `metrics`, and the workflow spans into the
 * service's traces (dropped when tracing is off here). Every worker running the bundle registers them: Temporal logs
 * an error for a call to a sink a worker does not have.
 */
export function workerSinks(metrics: ProcessMetrics = NO_PROCESS_METRICS): InjectedSinks<ProcessSinks & OpenTelemetrySinks> {
  return {
    processes: {
      ended: {
        fn: (info, outcome) => {
          const kind = kindOf.get(info.workflowType);
          if (kind) metrics.ended(kind, outcome);
        },
      },
    },
    exporter: { export: { fn: (info, spans) => exportSpans((resource) => spans.map((span) => readableSpan(span, info, resource))) } },
  };
}

/** A workflow span (1.x-shaped, from the sandbox) as a 2.x ReadableSpan of this process's resource. */
function readableSpan(span: SerializableSpan, info: WorkflowInfo, resource: Resource): ReadableSpan {
  const { traceState, ...ids } = span.spanContext;
  const spanContext = traceState ? { ...ids, traceState: createTraceState(traceState) } : ids;
  return {
    name: span.name,
    kind: span.kind,
    spanContext: () => spanContext,
    parentSpanContext: span.parentSpanId ? { traceId: ids.traceId, spanId: span.parentSpanId, traceFlags: ids.traceFlags } : undefined,
    startTime: span.startTime,
    endTime: span.endTime,
    status: span.status,
    // The keys the package's activity and client spans give the workflow's ids.
    attributes: { ...span.attributes, temporalWorkflowId: info.workflowId, run_id: info.runId },
    links: span.links,
    events: span.events,
    duration: span.duration,
    ended: span.ended,
    resource,
    instrumentationScope: span.instrumentationLibrary,
    droppedAttributesCount: span.droppedAttributesCount,
    droppedEventsCount: span.droppedEventsCount,
    droppedLinksCount: span.droppedLinksCount,
  };
}
