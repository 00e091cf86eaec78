// Throughput of GET /v1/tenants/:id on the real app (auth, hooks, zod validation and serialization, slonik)
// against a bare Fastify route running the same SELECT through a plain pg.Pool, measured in the same run.
// BENCH_DURATION (s, default 10) and BENCH_CONNECTIONS (default 50) tune it. BENCH_RATE_LIMIT_MAX turns the general rate
// limit on (off by default) with that many requests a minute, so its cost on the hot path shows in the figure.
import os from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import pg from 'pg';
import { startBenchApp } from './app.ts';
import { machineBusySeconds, treeCpuSeconds } from './proc.ts';
import { startBenchDatabase } from './database.ts';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const WARMUP = 2;
const TARGET_RATIO = 0.6;

// The shape of findReachableTenantById in db/tenants/tenants/queries.ts.
const TENANT_BY_ID = `
  SELECT t.id, t.name, t.description, t.company, t.active, t.created_at AS "createdAt", t.updated_at AS "updatedAt",
    ARRAY(SELECT ot.organization_id FROM organization_tenants ot WHERE ot.tenant_id = t.id ORDER BY ot.created_at, ot.organization_id) AS "organizationIds"
  FROM tenants t
  WHERE t.id = $1 AND EXISTS (SELECT 1 FROM organization_tenants r WHERE r.tenant_id = t.id AND r.organization_id = ANY($2::uuid[]))`;

async function startBaseline(databaseUrl: string, poolSize: number, organizationId: string) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  const app = Fastify({ logger: false });
  app.get<{ Params: { id: string } }>('/tenants/:id', async (request, reply) => {
    const { rows } = await pool.query(TENANT_BY_ID, [request.params.id, [organizationId]]);
    return rows[0] ? { tenant: rows[0] } : reply.code(404).send({ error: 'not found' });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    close: async () => {
      await app.close();
      await pool.end();
    },
  };
}

const baseUrl = (app: { server: { address(): unknown } }) => `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

// Load after a warm-up. otherCpu: cores used meanwhile by processes other than this one and its Postgres,
// i.e. load from elsewhere that makes the comparison unfair.
async function measure(url: string, headers: Record<string, string>) {
  await autocannon({ url, connections: CONNECTIONS, duration: WARMUP, headers });
  const before = { ours: treeCpuSeconds(process.pid), machine: machineBusySeconds(), at: performance.now() };
  const r = await autocannon({ url, connections: CONNECTIONS, duration: DURATION, headers });
  const other = machineBusySeconds() - before.machine - (treeCpuSeconds(process.pid) - before.ours);
  const otherCpu = Math.max(0, Math.round((other / ((performance.now() - before.at) / 1000)) * 100) / 100);
  if (r.errors || r.timeouts || r.non2xx) throw new Error(`${url}: ${r.errors} errors, ${r.timeouts} timeouts, ${r.non2xx} non-2xx`);
  return { rps: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, requests: r.requests.total, otherCpu };
}

const cleanups: (() => Promise<unknown>)[] = [];
try {
  const databaseUrl = await startBenchDatabase(cleanups);

  const limit = process.env.BENCH_RATE_LIMIT_MAX;
  const service = await startBenchApp(databaseUrl, limit ? { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_MAX: limit } : {});
  cleanups.push(() => service.close());
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const { tenantId, organizationId } = service.credentials;
  const baseline = await startBaseline(databaseUrl, service.poolSize, organizationId);
  cleanups.push(() => baseline.close());

  const serviceUrl = `${baseUrl(service.app)}/v1/tenants/${tenantId}`;
  const baselineUrl = `${baseUrl(baseline.app)}/tenants/${tenantId}`;
  const auth = { authorization: `Bearer ${await service.token()}` };
  // Both must answer 200 with the same document, or the comparison means nothing.
  const [a, b] = await Promise.all([fetch(serviceUrl, { headers: auth }), fetch(baselineUrl)]);
  const [ja, jb] = await Promise.all([a.json(), b.json()]);
  if (a.status !== 200 || b.status !== 200 || !isDeepStrictEqual(ja, jb)) {
    throw new Error(`responses differ: service ${a.status} ${JSON.stringify(ja)} / baseline ${b.status} ${JSON.stringify(jb)}`);
  }

  const base = await measure(baselineUrl, {});
  const svc = await measure(serviceUrl, auth);
  const ratio = Math.round((svc.rps / base.rps) * 100) / 100;

  const row = (name: string, m: typeof base) =>
    `${name.padEnd(34)}${String(m.rps).padStart(9)}${String(m.p50).padStart(9)}${String(m.p99).padStart(9)}${m.otherCpu.toFixed(2).padStart(12)}`;
  console.log(
    `\nGET one tenant: ${CONNECTIONS} connections, ${DURATION} s each after ${WARMUP} s warm-up, pg pool ${service.poolSize}, ${os.cpus().length} CPUs, rate limit ${limit ? `${limit}/min` : 'off'}`,
  );
  console.log(`${''.padEnd(34)}${'req/s'.padStart(9)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'other CPU'.padStart(12)}`);
  console.log(row('baseline (bare Fastify + pg)', base));
  console.log(row('service GET /v1/tenants/:id', svc));
  const quiet = Math.max(base.otherCpu, svc.otherCpu) <= 0.1;
  if (!quiet) console.log('WARNING: other processes used CPU during the runs (cores, last column); the ratio is unreliable.');
  console.log(`ratio service/baseline: ${ratio.toFixed(2)} (target >= ${TARGET_RATIO}) ${ratio >= TARGET_RATIO ? 'OK' : 'BELOW TARGET'}\n`);
  console.log(
    `RESULT ${JSON.stringify({ bench: 'http', rateLimitMax: limit ? Number(limit) : null, connections: CONNECTIONS, durationS: DURATION, poolSize: service.poolSize, baseline: base, service: svc, ratio, targetRatio: TARGET_RATIO, ok: ratio >= TARGET_RATIO, quiet })}`,
  );
} finally {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((e: unknown) => console.error('cleanup failed:', e));
}
