// The pieces of a bench that compares a JSON POST route of the service with a bare Fastify route answering the same
// JSON: the baseline server, its URL, and autocannon at full rate (in the load worker's child process) with the CPU
// other processes used meanwhile, so a figure from a busy machine is recognisable.
import Fastify from 'fastify';
import type { startLoadWorker } from './load-worker.ts';
import { machineBusySeconds, treeCpuSeconds } from './proc.ts';

export const baseUrl = (app: { server: { address(): unknown } }) => `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

/** A bare Fastify server answering `answer` to POST `path`. */
export async function startJsonBaseline(path: string, answer: unknown) {
  const app = Fastify({ logger: false });
  app.post(path, async () => answer);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app;
}

export interface JsonLoad {
  url: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  duration: number;
  /** Seconds of unmeasured load first (0: none). */
  warmup: number;
  /** Requests per second over all connections; absent: as fast as the server answers. */
  overallRate?: number | undefined;
}

/** req/s, p50/p99 (ms), and `otherCpu`: cores used meanwhile by processes other than this one and its Postgres. */
export async function jsonLoad(loader: ReturnType<typeof startLoadWorker>, load: JsonLoad) {
  const options = {
    url: load.url,
    method: 'POST' as const,
    headers: { 'content-type': 'application/json', ...load.headers },
    body: load.body,
    connections: load.connections,
  };
  if (load.warmup > 0) await loader.run({ ...options, duration: load.warmup });
  const before = { ours: treeCpuSeconds(process.pid), machine: machineBusySeconds(), at: performance.now() };
  const r = await loader.run({ ...options, duration: load.duration, ...(load.overallRate ? { overallRate: load.overallRate } : {}) });
  const other = machineBusySeconds() - before.machine - (treeCpuSeconds(process.pid) - before.ours);
  const otherCpu = Math.max(0, Math.round((other / ((performance.now() - before.at) / 1000)) * 100) / 100);
  if (r.errors || r.timeouts || r.non2xx) throw new Error(`${load.url}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`);
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, otherCpu };
}
