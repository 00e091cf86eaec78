// p50/p95/p99 (ms) of sequential requests, after `warmup` unmeasured ones; each must answer 200.
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (ms: number) => Math.round(ms * 100) / 100;

/** `init` is the request, or builds request `i` (a different body each time). */
export async function sequentialLatency(url: string, init: RequestInit | ((i: number) => RequestInit), samples: number, warmup = 20) {
  const times: number[] = [];
  for (let i = 0; i < samples + warmup; i++) {
    const started = performance.now();
    const res = await fetch(url, typeof init === 'function' ? init(i) : init);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    if (i >= warmup) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: round(percentile(times, 50)), p95: round(percentile(times, 95)), p99: round(percentile(times, 99)) };
}
