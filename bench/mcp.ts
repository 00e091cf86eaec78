// `npm run bench:mcp`: the MCP benchmarks over one service and one seeded trust store (bench/mcp/seed.ts):
// runtime resolution (bench/mcp/resolve.ts), then the runtime events ingest benchmark (bench/mcp-ingest.ts).
// BENCH_DURATION (s, default 10) and BENCH_CONNECTIONS (default 50) tune the loads.
import os from 'node:os';
import { startBenchApp } from './app.ts';
import { startBenchDatabase } from './database.ts';
import { startLoadWorker } from './load-worker.ts';
import { benchMcpIngest, printMcpIngest } from './mcp-ingest.ts';
import type { McpBenchContext } from './mcp/context.ts';
import { benchResolve, RESOLVE_TARGET } from './mcp/resolve.ts';
import { ENTRIES, seedTrustStore } from './mcp/seed.ts';

const loader = startLoadWorker();
const cleanups: (() => Promise<unknown>)[] = [loader.close];
try {
  const databaseUrl = await startBenchDatabase(cleanups);
  const service = await startBenchApp(databaseUrl);
  cleanups.push(() => service.close());
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const { environmentId } = service.credentials;
  const { secret, subjects } = await seedTrustStore(service.pool, environmentId);
  const url = `http://127.0.0.1:${(service.app.server.address() as { port: number }).port}`;
  const ctx: McpBenchContext = { service, url, loader, environmentId, secret, subjects, cleanups };

  const r = await benchResolve(ctx);
  const verdict = r.ratio >= RESOLVE_TARGET ? 'OK' : 'BELOW TARGET';
  console.log(
    `\nMCP trust store: ${ENTRIES} entries with a key each; ${r.settings.CONNECTIONS} connections, ${r.settings.DURATION} s per load after ` +
      `${r.settings.WARMUP} s warm-up; ${os.cpus().length} CPUs`,
  );
  const rows = [
    ['', 'measured', 'target', ''],
    ['baseline: bare Fastify, same JSON', `${r.base.rps} req/s, p50 ${r.base.p50} ms, p99 ${r.base.p99} ms`, '', ''],
    [
      'GET /v1/mcp/trust-store/resolve',
      `${r.service.rps} req/s, p50 ${r.service.p50} ms, p99 ${r.service.p99} ms`,
      `ratio >= ${RESOLVE_TARGET}`,
      `${r.ratio.toFixed(2)} ${verdict}`,
    ],
    ['… If-None-Match (304)', `${r.revalidated.rps} req/s, p50 ${r.revalidated.p50} ms, p99 ${r.revalidated.p99} ms`, '', ''],
  ];
  for (const [name, figure, target, result] of rows) console.log(`${name!.padEnd(36)}${figure!.padEnd(48)}${target!.padEnd(16)}${result}`);
  if (r.otherCpu > 0.1) console.log(`WARNING: other processes used ${r.otherCpu} cores during the load runs; throughput figures are unreliable.`);
  console.log(`\nRESULT ${JSON.stringify({ bench: 'mcp-resolve', ...r, target: RESOLVE_TARGET })}`);

  // The ingest benchmark runs on a service and database of its own (bench/mcp-ingest.ts), after the resolve loads.
  printMcpIngest(await benchMcpIngest());
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((e: unknown) => console.error('cleanup failed:', e));
}
