// The protections pipeline's EvaluationTimings (api/protections/pipeline.ts) as bench:protections reads them, kept
// between `reset` and `take`: the decisions (each `before` and `succeeded` call: may this attempt go on?) and the
// bookkeeping of a wrong password (`failed`: counting it), apart.
import type { EvaluationTimings } from '../../api/protections/pipeline.ts';
import { latencies } from '../sign-in/page-load.ts';

export function timingCollector() {
  let decisions: number[] = [];
  let failures: number[] = [];
  const timings: EvaluationTimings & { reset(): void; take(): ReturnType<typeof latencies>; takeFailed(): ReturnType<typeof latencies> } = {
    record: (ms, point) => void (point === 'failed' ? failures : decisions).push(ms),
    reset: () => {
      decisions = [];
      failures = [];
    },
    take: () => latencies(decisions),
    takeFailed: () => latencies(failures),
  };
  return timings;
}
