// The longest the event loop went without turning while `work` ran: a setImmediate ticker notes each gap between
// its turns, so any synchronous stretch (a regular expression backtracking, a condition looping) shows as a gap,
// including one that ends the work (the last gap is taken when the work has settled).
//
// `stallMs` is the CPU time the event-loop thread spent inside the longest gap (process.threadCpuUsage): the time
// our code held the loop. `wallStallMs` is the gap in wall-clock time, which on a loaded machine also counts the
// time the OS did not run the process at all (tests share two cores with other suites), so it is reported, not
// asserted.
const threadCpuMs = () => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
};

export async function longestStall<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number; wallStallMs: number }> {
  let last = performance.now();
  let lastCpu = threadCpuMs();
  let stallMs = 0;
  let wallStallMs = 0;
  let running = true;
  const tick = () => {
    const now = performance.now();
    const cpu = threadCpuMs();
    wallStallMs = Math.max(wallStallMs, now - last);
    stallMs = Math.max(stallMs, Math.min(cpu - lastCpu, now - last));
    last = now;
    lastCpu = cpu;
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
  return { result, stallMs, wallStallMs };
}
