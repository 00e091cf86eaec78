// A closed-loop load: `users` virtual users each run `iteration` again and again until `duration` seconds have
// passed; an iteration that throws counts as an error (the first one's message kept) and its user goes on.
export interface ClosedLoopResult {
  seconds: number;
  errors: number;
  firstError?: string | undefined;
}

export async function closedLoop(users: number, duration: number, iteration: () => Promise<unknown>): Promise<ClosedLoopResult> {
  let errors = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const until = started + duration * 1000;
  await Promise.all(
    Array.from({ length: users }, async () => {
      while (performance.now() < until) {
        await iteration().catch((error: unknown) => {
          errors++;
          firstError ??= String(error);
        });
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, errors, firstError };
}
