// Counts how each process ends on a Temporal worker (iam_process_completions_total / iam_process_failures_total): the
// sandbox cannot reach the worker's registry, so the end goes out through a sink (worker/temporal-telemetry.ts), which
// Temporal calls once, never on a replay. Bundled as a workflow interceptor module (worker/bundle.ts).
import { isCancellation, proxySinks, TemporalFailure, type Sinks, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

export interface ProcessSinks extends Sinks {
  processes: {
    /** The process of this workflow type ended (the worker maps the type to the process kind). */
    ended(outcome: 'completed' | 'failed'): void;
  };
}

const { processes } = proxySinks<ProcessSinks>();

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      execute: async (input, next) => {
        try {
          const output = await next(input);
          processes.ended('completed');
          return output;
        } catch (error) {
          // Only a TemporalFailure fails the workflow: another error fails the workflow task, which Temporal retries
          // (the process has not ended). Continue-as-new is not an end either, and a cancellation is not a failure.
          if (error instanceof TemporalFailure && !isCancellation(error)) processes.ended('failed');
          throw error;
        }
      },
    },
  ],
});
