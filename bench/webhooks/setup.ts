// What the webhook benchmark runs on: an embedded Postgres, the real app with its processes (DBOS and the
// event dispatcher) in this process, a local receiver, and a webhook endpoint of the bootstrap tenant on it.
import { startBenchAppWithProcesses } from '../processes-app.ts';
import { commitEvents, settled, type Fixture } from './events.ts';
import { ENGINE_ROUTE } from './engine.ts';
import { startReceiver } from './receiver.ts';
import { startBenchDatabase } from '../database.ts';

const WARMUP_EVENTS = 50;

/** Sets everything up; `cleanups` gets what undoes it, to run in reverse order. */
export async function setUp(cleanups: (() => Promise<unknown>)[]) {
  const databaseUrl = await startBenchDatabase(cleanups);

  const receiver = await startReceiver();
  cleanups.push(() => receiver.close());
  const service = await startBenchAppWithProcesses(databaseUrl, {
    ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    RATE_LIMIT_ENABLED: 'false',
    LOG_LEVEL: 'silent',
  });
  cleanups.push(() => service.close());

  const { tenantId, organizationId } = service.credentials;
  const headers = { authorization: `Bearer ${await service.token()}` };
  const tenantRes = await service.app.inject({ method: 'GET', url: `/v1/tenants/${tenantId}`, headers });
  if (tenantRes.statusCode !== 200) throw new Error(`GET tenant: ${tenantRes.statusCode} ${tenantRes.body}`);
  const f: Fixture = { pool: service.pool, tenantId, organizationId, tenant: (tenantRes.json() as { tenant: Fixture['tenant'] }).tenant };
  const created = await service.app.inject({
    method: 'POST',
    url: `/v1/tenants/${tenantId}/webhooks`,
    headers,
    payload: { url: `${receiver.url}${ENGINE_ROUTE}`, eventTypes: ['tenant.*'] },
  });
  if (created.statusCode !== 201) throw new Error(`POST webhook: ${created.statusCode} ${created.body}`);
  const { secret } = created.json() as { secret: string };

  // Warm-up: the first deliveries pay for connections, JIT and DBOS' first queries.
  const warm = await commitEvents(f, WARMUP_EVENTS, 10);
  if (!(await receiver.waitFor(ENGINE_ROUTE, warm, 30_000))) throw new Error('warm-up deliveries did not arrive');
  await settled(f.pool, 30_000);
  return { f, receiver, service, secret, databaseUrl };
}
