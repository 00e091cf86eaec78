// The protections pipeline's EvaluationTimings (api/protections/pipeline.ts) as bench:protections reads them, kept
// between `reset` and `take`, per point: `before` and `succeeded` are the decisions (may this attempt go on?), `failed`
// the bookkeeping of a wrong password (counting it).
import type { EvaluationTimings } from '../../api/protections/pipeline.ts';
import { latencies } from '../sign-in/page-load.ts';

type Point = Parameters<EvaluationTimings['record']>[1];

export function timingCollector() {
  let calls: Record<Point, number[]> = { before: [], succeeded: [], failed: [] };
  const timings = {
    record: (ms: number, point: Point) => void calls[point].push(ms),
    reset: () => void (calls = { before: [], succeeded: [], failed: [] }),
    /** The decisions: every `before` and `succeeded` call. */
    take: () => latencies([...calls.before, ...calls.succeeded]),
    takePoint: (point: Point) => latencies(calls[point]),
  } satisfies EvaluationTimings & Record<string, unknown>;
  return timings;
}
