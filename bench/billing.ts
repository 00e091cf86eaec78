// `npm run bench:billing`: GET …/billing/entitlements/{organization} (the organization's effective entitlements from
// the local catalog, target p99 ≤ 5 ms) over a catalog of BENCH_PLANS plans (default 50) and BENCH_ORGANIZATIONS
// organizations with a subscription each (default 500): p50/p95/p99 of sequential requests, next to a bare Fastify
// route reading the same row with pg (the baseline, measured in the same run). BENCH_SAMPLES (default 2000) tunes it.
import Fastify from 'fastify';
import pg from 'pg';
import { sql } from 'slonik';
import { startBenchApp } from './app.ts';
import { startBenchDatabase } from './database.ts';
import { baseUrl } from './json-load.ts';
import { sequentialLatency } from './sequential-latency.ts';

const PLANS = Number(process.env.BENCH_PLANS ?? 50);
const ORGANIZATIONS = Number(process.env.BENCH_ORGANIZATIONS ?? 500);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 2000);
const TARGET_P99_MS = 5;

const cleanups: (() => Promise<unknown>)[] = [];
try {
  const databaseUrl = await startBenchDatabase(cleanups);
  const service = await startBenchApp(databaseUrl);
  cleanups.push(() => service.close());
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  const { tenantId, environmentId, organizationId } = service.credentials;
  const url = baseUrl(service.app);
  const headers = { authorization: `Bearer ${await service.token()}`, 'content-type': 'application/json' };
  const billing = `${url}/v1/tenants/${tenantId}/environments/${environmentId}/billing`;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${billing}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };

  // The catalog through the API; the other organizations (linked to the tenant) and their subscriptions by SQL.
  for (const key of ['sso', 'audit_logs', 'scim']) await post('/features', { key, name: key, kind: 'boolean' });
  await post('/features', { key: 'seats', name: 'Seats', kind: 'limit', unit: 'seat' });
  for (let i = 0; i < PLANS; i++) {
    await post('/plans', {
      key: `plan_${i}`,
      name: `Plan ${i}`,
      features: { sso: true, seats: 10 + i },
      prices: [{ currency: 'usd', amount: 1000 + i, interval: 'month' }],
    });
  }
  await post('/subscriptions', { organizationId, planKey: 'plan_7' });
  await service.pool.query(sql.unsafe`
    WITH orgs AS (INSERT INTO organizations (name) SELECT 'bench ' || g FROM generate_series(1, ${ORGANIZATIONS - 1}) g RETURNING id),
      linked AS (INSERT INTO organization_tenants (organization_id, tenant_id) SELECT id, ${tenantId} FROM orgs RETURNING organization_id)
    INSERT INTO billing_subscriptions (environment_id, organization_id, plan_id, status, source)
    SELECT ${environmentId}, l.organization_id, (SELECT id FROM billing_plans WHERE environment_id = ${environmentId} ORDER BY random() LIMIT 1), 'active', 'api'
    FROM linked l`);
  await service.pool.query(sql.unsafe`
    INSERT INTO billing_entitlements (environment_id, organization_id, entitlements, plans)
    SELECT s.environment_id, s.organization_id, p.features, ARRAY[p.key] FROM billing_subscriptions s JOIN billing_plans p ON p.id = s.plan_id
    WHERE s.environment_id = ${environmentId} ON CONFLICT DO NOTHING`);

  const entitlementsUrl = `${billing}/entitlements/${organizationId}`;
  const check = (await (await fetch(entitlementsUrl, { headers })).json()) as { plans?: string[] };
  if (check.plans?.[0] !== 'plan_7') throw new Error(`unexpected answer: ${JSON.stringify(check)}`);

  // The baseline: Fastify and pg, the same row, no authentication or serialization schema.
  const client = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  cleanups.unshift(() => client.end());
  const bare = Fastify({ logger: false });
  bare.get('/entitlements/:id', async (request) => {
    const { rows } = await client.query(
      'SELECT organization_id AS "organizationId", entitlements, plans, updated_at AS "updatedAt" FROM billing_entitlements WHERE environment_id = $1 AND organization_id = $2',
      [environmentId, (request.params as { id: string }).id],
    );
    return rows[0];
  });
  await bare.listen({ port: 0, host: '127.0.0.1' });
  cleanups.unshift(() => bare.close());

  const service99 = await sequentialLatency(entitlementsUrl, { headers }, SAMPLES, 200);
  const baseline = await sequentialLatency(`${baseUrl(bare)}/entitlements/${organizationId}`, {}, SAMPLES, 200);
  console.log(`billing entitlements: ${PLANS} plans, ${ORGANIZATIONS} organizations with a subscription, ${SAMPLES} sequential requests`);
  console.log(`  service   GET …/billing/entitlements/{organization}  p50 ${service99.p50} ms  p95 ${service99.p95} ms  p99 ${service99.p99} ms`);
  console.log(`  baseline  Fastify + pg, the same row                  p50 ${baseline.p50} ms  p95 ${baseline.p95} ms  p99 ${baseline.p99} ms`);
  console.log(`  target p99 ≤ ${TARGET_P99_MS} ms: ${service99.p99 <= TARGET_P99_MS ? 'met' : 'MISSED'}`);
} finally {
  for (const close of cleanups) await close();
}
