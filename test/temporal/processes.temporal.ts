// The durable processes on a real Temporal server, through the same gateway and activities as production:
// a worker in this process runs the bundled workflows on its own task queue against a cloned test database.
// Needs TEMPORAL_ADDRESS (and TEMPORAL_NAMESPACE, default `default`) with the TenantId search attribute
// registered, as docker compose's temporal-init job does. Skipped, with the reason printed, otherwise.
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { DatabasePool } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { displayPrefix, encrypt, generateCredential } from '../../lib/crypto.ts';
import { createDatabasePool } from '../../db/pool.ts';
import { recordChange } from '../../db/shared/changes.ts';
import { createDeliveryQueries } from '../../db/events/webhooks/deliveries.ts';
import { createOrganizationQueries } from '../../db/organizations/organizations/queries.ts';
import { createTenantQueries } from '../../db/tenants/tenants/queries.ts';
import { createWebhookEndpointQueries } from '../../db/events/webhooks/queries.ts';
import { bundleWorkflows } from '../../worker/bundle.ts';
import { createTemporalGateway, type TemporalGateway } from '../../worker/temporal-gateway.ts';
import { processId } from '../../db/processes/outbox.ts';
import { TenantIdKey } from '../../workflows/search-attributes.ts';
import { createTestDatabase } from '../helpers/database.ts';

const address = process.env.TEMPORAL_ADDRESS;
const namespace = process.env.TEMPORAL_NAMESPACE || 'default';
const title = address ? `processes on Temporal at ${address}` : 'processes on Temporal: skipped because TEMPORAL_ADDRESS is unset';

describe.skipIf(!address)(title, () => {
  // A task queue of its own, so that no other worker on the server (e.g. compose's) takes these tasks.
  const taskQueue = `iam-test-${randomUUID()}`;
  const masterKey = randomBytes(32);
  const received: string[] = [];
  let receiver: http.Server, receiverUrl: string;
  let pool: DatabasePool, worker: Worker, connection: NativeConnection, gateway: TemporalGateway, client: Client;

  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    receiver = http.createServer((req, res) => {
      received.push(String(req.headers['x-service-delivery-id']));
      req.resume().on('end', () => res.writeHead(received.length === 1 ? 500 : 200).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

    pool = await createDatabasePool(await createTestDatabase(), { maxPoolSize: 5 });
    const activities = createActivities({
      pool,
      masterKey,
      timeoutMs: 5000,
      allowPrivate: true,
      disableAfterMs: 86_400_000,
      baseUrls: { pagerduty: 'http://127.0.0.1:9', datadog: null },
      dnsServers: [],
    });
    connection = await NativeConnection.connect({ address: address! });
    worker = await Worker.create({ connection, namespace, taskQueue, workflowBundle: await bundleWorkflows(), activities });
    gateway = await createTemporalGateway({ address: address!, namespace, taskQueue });
    client = new Client({ connection: await Connection.connect({ address: address! }), namespace });
  });

  afterAll(async () => {
    await gateway?.close();
    await client?.connection.close();
    await connection?.close();
    await pool?.end();
    if (receiver) await new Promise((resolve) => receiver.close(resolve));
  });

  /** A pending delivery of a fresh event to a webhook endpoint at the local receiver. */
  async function pendingDelivery() {
    return pool.transaction(async (trx) => {
      const organizationId = await createOrganizationQueries(trx).insertOrganization({ name: 'Temporal test' });
      const tenant = await createTenantQueries(trx).insertTenant({ name: 'Temporal test', description: null, company: null }, organizationId);
      const { eventId } = await recordChange(trx, {
        actor: { type: 'system', id: null },
        action: 'tenant.create',
        resource: { type: 'tenant', id: tenant.id },
        scope: { organizationId, tenantId: tenant.id },
        event: { type: 'tenant.created', data: { tenant } },
      });
      const endpoints = createWebhookEndpointQueries(trx);
      const endpointId = await endpoints.insertEndpoint({
        tenantId: tenant.id,
        environmentId: null,
        url: receiverUrl,
        description: null,
        eventTypes: ['*'],
        active: true,
      });
      const secret = generateCredential('whsec');
      await endpoints.insertSecret(endpointId, encrypt(masterKey, secret), displayPrefix(secret));
      const deliveryId = await createDeliveryQueries(trx).insertDelivery({ tenantId: tenant.id, eventId, endpointId });
      return { deliveryId, endpointId, tenantId: tenant.id };
    });
  }

  it('delivers once through a failed first attempt; starting it again is a no-op', async () => {
    const { deliveryId, endpointId, tenantId } = await pendingDelivery();
    const id = processId('webhook-delivery', deliveryId);
    const input = { deliveryId, scheduleMs: [0, 200, 200] };
    const handle = client.workflow.getHandle(id);

    await worker.runUntil(async () => {
      await gateway.start('webhook-delivery', id, input, { tenantId });
      await gateway.start('webhook-delivery', id, input, { tenantId });
      expect(await handle.result()).toBe('succeeded');
    });
    const { runId, typedSearchAttributes } = await handle.describe();
    await gateway.start('webhook-delivery', id, input, { tenantId });

    expect(await gateway.describe(id)).toEqual({ processId: id, status: 'completed' });
    expect((await handle.describe()).runId).toBe(runId);
    expect(typedSearchAttributes.get(TenantIdKey)).toBe(tenantId);
    expect(received).toEqual([deliveryId, deliveryId]);
    const queries = createDeliveryQueries(pool);
    expect((await queries.findAttempts(deliveryId)).map((a) => [a.attempt, a.statusCode])).toEqual([
      [1, 500],
      [2, 200],
    ]);
    expect(await queries.findDelivery(deliveryId, { endpointId })).toMatchObject({ status: 'succeeded', attemptCount: 2 });
  });
});
