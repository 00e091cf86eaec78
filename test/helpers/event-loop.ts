// The longest the event loop went without turning while `work` ran: a setImmediate ticker notes the gap between
// its turns, so any synchronous stretch (a regular expression backtracking, a condition looping) shows as a gap,
// including one that ends the work (the last gap is taken when the work has settled).
export async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  let last = performance.now();
  let stallMs = 0;
  let running = true;
  const tick = () => {
    const now = performance.now();
    stallMs = Math.max(stallMs, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  let result: T;
  try {
    result = await work();
  } finally {
    running = false;
    tick();
  }
  return { result, stallMs };
}
