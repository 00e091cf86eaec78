// GET /v1/mcp/trust-store/resolve: req/s of the service against a bare Fastify route answering the same JSON, in the
// same run (each side's best of two interleaved runs), and p50/p99 of both; the ratio target is 0.5.
import { isDeepStrictEqual } from 'node:util';
import Fastify from 'fastify';
import { machineBusySeconds, treeCpuSeconds } from '../proc.ts';
import type { McpBenchContext } from './context.ts';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WARMUP = 2;
export const RESOLVE_TARGET = 0.5;

export async function benchResolve(ctx: McpBenchContext) {
  const subject = ctx.subjects[Math.floor(ctx.subjects.length / 2)]!;
  const path = `/v1/mcp/trust-store/resolve?subject=${encodeURIComponent(subject)}`;
  const headers = { authorization: `Bearer ${ctx.secret}` };
  const first = await fetch(`${ctx.url}${path}`, { headers });
  const answer = await first.json();
  const etag = first.headers.get('etag');

  const baseline = Fastify({ logger: false });
  baseline.get('/v1/mcp/trust-store/resolve', async () => answer);
  await baseline.listen({ port: 0, host: '127.0.0.1' });
  ctx.cleanups.push(() => baseline.close());
  const baseUrl = `http://127.0.0.1:${(baseline.server.address() as { port: number }).port}`;
  const checked = await (await fetch(`${baseUrl}${path}`)).json();
  if (first.status !== 200 || !isDeepStrictEqual(answer, checked)) throw new Error(`answers differ: ${first.status} ${JSON.stringify(answer)}`);

  const load = async (url: string, extra: Record<string, string> = {}) => {
    const options = { url, method: 'GET' as const, headers: { ...headers, ...extra }, connections: CONNECTIONS };
    await ctx.loader.run({ ...options, duration: WARMUP });
    const before = { ours: treeCpuSeconds(process.pid), machine: machineBusySeconds(), at: performance.now() };
    const r = await ctx.loader.run({ ...options, duration: DURATION });
    const other = machineBusySeconds() - before.machine - (treeCpuSeconds(process.pid) - before.ours);
    const otherCpu = Math.max(0, Math.round((other / ((performance.now() - before.at) / 1000)) * 100) / 100);
    // A 304 is the expected answer of a revalidation.
    const failed = r.errors + r.timeouts + (extra['if-none-match'] ? 0 : r.non2xx);
    if (failed) throw new Error(`${url}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`);
    return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, otherCpu };
  };
  const best = (a: Awaited<ReturnType<typeof load>>, b: Awaited<ReturnType<typeof load>>) => (a.rps >= b.rps ? a : b);
  const runs = [];
  for (let i = 0; i < 2; i++) runs.push([await load(`${baseUrl}${path}`), await load(`${ctx.url}${path}`)]);
  const base = best(runs[0]![0]!, runs[1]![0]!);
  const service = best(runs[0]![1]!, runs[1]![1]!);
  const revalidated = await load(`${ctx.url}${path}`, { 'if-none-match': etag ?? '' });
  const ratio = Math.round((service.rps / base.rps) * 100) / 100;
  return {
    base,
    service,
    revalidated,
    ratio,
    otherCpu: Math.max(base.otherCpu, service.otherCpu, revalidated.otherCpu),
    settings: { DURATION, CONNECTIONS, WARMUP },
  };
}
