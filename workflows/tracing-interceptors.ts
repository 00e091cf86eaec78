// Temporal's OpenTelemetry workflow interceptors (@temporalio/interceptors-opentelemetry), for the runs whose start
// carried a trace context: the dispatcher's client adds it only with tracing on (worker/temporal-telemetry.ts), so a
// worker without OTEL_EXPORTER_OTLP_ENDPOINT makes no span and calls no sink. A traced run's spans (RunWorkflow, and
// StartActivity, whose context goes on to the activity in its headers) leave the sandbox through the `exporter` sink.
// The run's headers are in its history, so a replay takes the same path. Bundled as a workflow interceptor module.
import {
  OpenTelemetryInboundInterceptor,
  OpenTelemetryInternalsInterceptor,
  OpenTelemetryOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/workflow/index.js';
import type { Headers, WorkflowInterceptorsFactory } from '@temporalio/workflow';

/** The header the package's client and workflow interceptors carry the context in (its `TRACE_HEADER`). */
const TRACE_HEADER = '_tracer-data';
const carriesTrace = (headers: Headers) => headers[TRACE_HEADER] !== undefined;

export const interceptors: WorkflowInterceptorsFactory = () => {
  let traced = false;
  let inbound: OpenTelemetryInboundInterceptor | undefined;
  let outbound: OpenTelemetryOutboundInterceptor | undefined;
  // Made on first use: the first one sets up the sandbox's tracer.
  const tracedIn = () => (inbound ??= new OpenTelemetryInboundInterceptor());
  const tracedOut = () => (outbound ??= new OpenTelemetryOutboundInterceptor());
  return {
    inbound: [
      {
        execute: (input, next) => {
          if (!carriesTrace(input.headers)) return next(input);
          traced = true;
          return tracedIn().execute(input, next);
        },
        handleSignal: (input, next) => (carriesTrace(input.headers) ? tracedIn().handleSignal(input, next) : next(input)),
      },
    ],
    outbound: [
      {
        scheduleActivity: (input, next) => (traced ? tracedOut().scheduleActivity(input, next) : next(input)),
        scheduleLocalActivity: (input, next) => (traced ? tracedOut().scheduleLocalActivity(input, next) : next(input)),
        startChildWorkflowExecution: (input, next) => (traced ? tracedOut().startChildWorkflowExecution(input, next) : next(input)),
        continueAsNew: (input, next) => (traced ? tracedOut().continueAsNew(input, next) : next(input)),
        signalWorkflow: (input, next) => (traced ? tracedOut().signalWorkflow(input, next) : next(input)),
        getLogAttributes: (input, next) => (traced ? tracedOut().getLogAttributes(input, next) : next(input)),
      },
    ],
    internals: [{ dispose: (input, next) => (traced ? new OpenTelemetryInternalsInterceptor().dispose(input, next) : next(input)) }],
  };
};
