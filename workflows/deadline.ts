// The movable deadline every expiry-like process waits on: wait (for messages on a topic, or asleep) until a
// deadline, which a message may move or end; once it has passed, ask the database (`due`), which acts only if the
// row is still due and otherwise answers the deadline it holds. Each round makes the same calls the five loops it
// replaced made (now, then receive or sleep while time is left, then the activity), so recorded histories replay.
import type { ProcessContext } from './port.ts';

/**
 * The least wait before asking the database again after it said "not due yet": when the workflow's clock runs
 * ahead of Postgres `now()` at the due moment, the process would otherwise ask again and again without a timer.
 */
export const RECHECK_FLOOR_MS = 1000;

/** What a message or the due check settles: the process ends with `done`, or waits on until `until` (ms since the epoch). */
export type DeadlineStep<R> = { done: R } | { until: number };

export interface MovableDeadline<Topics extends object, T extends keyof Topics & string, R> {
  /** The first deadline, in ms since the epoch. */
  until: number;
  /** The topic whose messages may move or end the wait; without one, the process sleeps. */
  topic?: T;
  /** What a message does: end the process, move the deadline, or (undefined) nothing: it waits again. */
  onMessage?: (message: Topics[T]) => DeadlineStep<NoInfer<R>> | undefined;
  /** A message clears the floor a "not due yet" set (the deadline it brings counts as it is). */
  messageClearsRecheck?: boolean;
  /** Runs once the deadline has passed. */
  due: () => Promise<DeadlineStep<NoInfer<R>>>;
}

export async function waitForDeadline<Topics extends object, T extends keyof Topics & string, R>(
  ctx: ProcessContext<Topics>,
  deadline: MovableDeadline<Topics, T, R>,
): Promise<R> {
  let until = deadline.until;
  let notBefore = 0;
  for (;;) {
    const now = await ctx.now();
    const remaining = Math.max(until, notBefore) - now;
    if (remaining > 0 && deadline.topic === undefined) await ctx.sleep(remaining);
    const message = remaining > 0 && deadline.topic !== undefined ? await ctx.receive(deadline.topic, remaining) : undefined;
    if (message) {
      const step = deadline.onMessage?.(message);
      if (step && 'done' in step) return step.done;
      if (step) until = step.until;
      if (deadline.messageClearsRecheck) notBefore = 0;
      continue;
    }
    const step = await deadline.due();
    if ('done' in step) return step.done;
    until = step.until;
    // The check ran once the wait was over (`now` was read before it): the next one comes at least the floor later.
    notBefore = now + Math.max(remaining, 0) + RECHECK_FLOOR_MS;
  }
}
