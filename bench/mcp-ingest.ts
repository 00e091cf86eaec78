// MCP runtime event ingest (POST /v1/mcp/events) with detection on: batches of tool.invoked events (1 in 100 of a
// tool the subject is not allowed, so detection opens a threat and then adds occurrences) sent by concurrent clients
// over real HTTP for a while; events/s stored. Beside it in the same run, the baseline: a bare Fastify route storing
// the same rows with one jsonb_to_recordset INSERT (no authentication, validation, stream events or detection).
// `benchMcpIngest()` returns the figures (npm run bench:mcp calls it); run alone, this file prints them.
// BENCH_MCP_SECONDS (default 5), BENCH_MCP_BATCH (events per request, default 100), BENCH_MCP_CONCURRENCY (default 4).
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { sql } from 'slonik';
import { request } from 'undici';
import { startBenchApp } from './app.ts';
import { startBenchDatabase } from './database.ts';
import { createApiSecret } from '../test/helpers/access-model.ts';
import { seedTrustStore } from '../test/helpers/trust-store-seed.ts';

const TARGET = 2000;
const AGENTS = 100;

export interface McpIngestResult {
  batch: number;
  concurrency: number;
  seconds: number;
  service: { eventsPerSecond: number; requests: number; threats: number };
  baseline: { eventsPerSecond: number; requests: number };
  ratio: number;
  target: number;
}

/** Sends batches from `concurrency` clients for `seconds`; returns the events stored per second and the requests made. */
async function load(url: string, headers: Record<string, string>, batch: number, concurrency: number, seconds: number) {
  let sent = 0;
  let requests = 0;
  let sequence = 0;
  const until = Date.now() + seconds * 1000;
  const body = () =>
    JSON.stringify({
      events: Array.from({ length: batch }, () => {
        const n = sequence++;
        return {
          id: `bench-${n}`,
          type: 'tool.invoked',
          subject: `spiffe://bench/agent/${n % AGENTS}`,
          tool: n % 100 === 0 ? 'wire_money' : 'search',
          outcome: 'allowed',
        };
      }),
    });
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        const res = await request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: body() });
        const text = await res.body.text();
        if (res.statusCode !== 202 && res.statusCode !== 200) throw new Error(`${url} answered ${res.statusCode}: ${text.slice(0, 200)}`);
        sent += batch;
        requests++;
      }
    }),
  );
  return { eventsPerSecond: Math.round(sent / ((Date.now() - started) / 1000)), requests };
}

export async function benchMcpIngest(options: { seconds?: number; batch?: number; concurrency?: number } = {}): Promise<McpIngestResult> {
  const seconds = options.seconds ?? Number(process.env.BENCH_MCP_SECONDS ?? 5);
  const batch = options.batch ?? Number(process.env.BENCH_MCP_BATCH ?? 100);
  const concurrency = options.concurrency ?? Number(process.env.BENCH_MCP_CONCURRENCY ?? 4);
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const databaseUrl = await startBenchDatabase(cleanups);
    const service = await startBenchApp(databaseUrl, { MCP_EVENTS_RATE_LIMIT: '1000000' });
    cleanups.push(() => service.close());
    const { environmentId } = service.credentials;
    await seedTrustStore(
      service.pool,
      environmentId,
      Array.from({ length: AGENTS }, (_, i) => ({ subject: `spiffe://bench/agent/${i}`, kind: 'agent' as const, allowedTools: ['search', 'refund'] })),
    );
    const { secret } = await createApiSecret(service.pool, environmentId, ['mcp']);
    const serviceUrl = await service.app.listen({ port: 0, host: '127.0.0.1' });

    // The baseline: the same rows, one statement, nothing else.
    const bare = Fastify({ bodyLimit: 1024 * 1024 });
    bare.post('/baseline', async (req, reply) => {
      const { events } = req.body as { events: Record<string, unknown>[] };
      await service.pool.query(sql.unsafe`
        INSERT INTO mcp_observations (environment_id, client_id, type, subject, tool, outcome, occurred_at)
        SELECT ${environmentId}, 'baseline-' || id, type, subject, tool, outcome, now()
        FROM jsonb_to_recordset(${JSON.stringify(events)}::jsonb) AS t(id text, type text, subject text, tool text, outcome text)
        ON CONFLICT DO NOTHING`);
      return reply.status(202).send({ accepted: events.length });
    });
    const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
    cleanups.push(() => bare.close());

    await load(`${serviceUrl}/v1/mcp/events`, { authorization: `Bearer ${secret}` }, batch, concurrency, 1); // warm-up (model load, JIT)
    const baseline = await load(`${bareUrl}/baseline`, {}, batch, concurrency, seconds);
    const measured = await load(`${serviceUrl}/v1/mcp/events`, { authorization: `Bearer ${secret}` }, batch, concurrency, seconds);
    const threats = await service.pool.oneFirst(sql.unsafe`SELECT count(*)::int FROM threats WHERE environment_id = ${environmentId}`);
    return {
      batch,
      concurrency,
      seconds,
      service: { ...measured, threats: Number(threats) },
      baseline,
      ratio: Math.round((measured.eventsPerSecond / baseline.eventsPerSecond) * 100) / 100,
      target: TARGET,
    };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((e: unknown) => console.error('cleanup failed:', e));
  }
}

export function printMcpIngest(r: McpIngestResult) {
  const verdict = r.service.eventsPerSecond >= r.target ? 'OK' : 'BELOW TARGET';
  console.log(`\nMCP event ingest: batches of ${r.batch} tool.invoked, ${r.concurrency} concurrent clients, ${r.seconds} s each`);
  console.log(`baseline: bare Fastify, one INSERT       ${r.baseline.eventsPerSecond} events/s (${r.baseline.requests} requests)`);
  console.log(
    `POST /v1/mcp/events, detection on        ${r.service.eventsPerSecond} events/s (${r.service.requests} requests, ${r.service.threats} threat)   ` +
      `target >= ${r.target}/s ${verdict}; ratio ${r.ratio}`,
  );
  console.log(`\nRESULT ${JSON.stringify({ bench: 'mcp-ingest', ...r })}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) printMcpIngest(await benchMcpIngest());
