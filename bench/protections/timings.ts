// The protections pipeline's EvaluationTimings (api/protections/pipeline.ts) as bench:protections reads them: every
// before/failed/succeeded call's wall time, kept between `reset` and `take`.
import type { EvaluationTimings } from '../../api/protections/pipeline.ts';
import { latencies } from '../sign-in/page-load.ts';

export function timingCollector() {
  let list: number[] = [];
  const timings: EvaluationTimings & { reset(): void; take(): ReturnType<typeof latencies> } = {
    record: (ms) => void list.push(ms),
    reset: () => void (list = []),
    take: () => latencies(list),
  };
  return timings;
}
