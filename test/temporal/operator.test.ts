// What an operator sees of the processes in Temporal UI, checked through the client's list and describe APIs on
// a real Temporal server: a tenant's processes found by its id (first attempts of deliveries included), the ids and
// delivery progress as search attributes, what each workflow is for, its current details, one signal per topic.
// Runs on the test run's Temporal dev server (test/setup/temporal.ts, every key of SEARCH_ATTRIBUTES registered); skipped with the Temporal suites.
import { randomBytes, randomUUID } from 'node:crypto';
import { Client, Connection, type WorkflowExecutionInfo } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { displayPrefix, encrypt, generateCredential } from '../../lib/crypto.ts';
import { createDatabasePool } from '../../db/pool.ts';
import { recordChange } from '../../db/shared/changes.ts';
import { createOrganizationQueries } from '../../db/organizations/organizations/queries.ts';
import { createTenantQueries } from '../../db/tenants/tenants/queries.ts';
import { createWebhookEndpointQueries } from '../../db/events/webhooks/queries.ts';
import { processId } from '../../db/processes/outbox.ts';
import { createProcessScopeQueries } from '../../db/processes/scopes.ts';
import { bundleWorkflows } from '../../worker/bundle.ts';
import { startDispatcher, type Dispatcher } from '../../worker/dispatcher.ts';
import { createTemporalGateway, type TemporalGateway } from '../../worker/temporal-gateway.ts';
import { workerSinks } from '../../worker/temporal-telemetry.ts';
import { DeliveryAttemptKey, EndpointIdKey, NextAttemptAtKey, OrganizationIdKey, TenantIdKey } from '../../workflows/search-attributes.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

// The run's Temporal dev server (test/setup/temporal.ts), or null when the Temporal suites are skipped.
const server = inject('temporal');
const address = server?.address;
const namespace = server?.namespace ?? 'default';
const title = address
  ? `what an operator sees on Temporal at ${address}`
  : 'what an operator sees on Temporal: skipped (no Temporal CLI: see the first lines of the run)';

/** Polls until `check` returns a value (visibility is eventually consistent), or fails with the last error. */
async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!address)(title, () => {
  const taskQueue = `iam-test-${randomUUID()}`;
  const masterKey = randomBytes(32);
  // Attempts 2 and 3 come quickly; after the third the delivery waits a minute: a stable state to look at.
  const scheduleMs = [0, 200, 200, 60_000];
  let receiver: Receiver, pool: DatabasePool, databaseUrl: string;
  let worker: Worker, running: Promise<void>, connection: NativeConnection, gateway: TemporalGateway, client: Client, dispatcher: Dispatcher;

  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    receiver = await startReceiver();
    databaseUrl = await createTestDatabase();
    pool = await createDatabasePool(databaseUrl, { maxPoolSize: 5 });
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
    worker = await Worker.create({ connection, namespace, taskQueue, workflowBundle: await bundleWorkflows(), activities, sinks: workerSinks() });
    running = worker.run();
    gateway = await createTemporalGateway({ address: address!, namespace, taskQueue, scopeOf: createProcessScopeQueries(pool).scopeOf });
    client = new Client({ connection: await Connection.connect({ address: address! }), namespace });
    dispatcher = await startDispatcher({ pool, databaseUrl, gateway, scheduleMs, pollMs: 200, onError: (error) => console.error(error) });
  });

  afterAll(async () => {
    await dispatcher?.stop();
    // Nothing of this run is left running on the server.
    if (client)
      for await (const w of client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running'` }))
        await client.workflow.getHandle(w.workflowId).terminate('test over');
    worker?.shutdown();
    await running;
    await gateway?.close();
    await client?.connection.close();
    await connection?.close();
    await pool?.end();
    await receiver?.close();
  });

  const list = async (query: string) => {
    const found: WorkflowExecutionInfo[] = [];
    for await (const w of client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND ${query}` })) found.push(w);
    return found;
  };
  /** The workflows `query` finds once there are `count` of them. */
  const listed = (query: string, count: number) => eventually(async () => ((found) => (found.length === count ? found : undefined))(await list(query)));

  /** A tenant in a fresh organization with a webhook endpoint at `path` of the receiver. */
  async function tenantWithEndpoint(path: string) {
    return pool.transaction(async (trx) => {
      const organizationId = await createOrganizationQueries(trx).insertOrganization({ name: 'Operator test' });
      const tenant = await createTenantQueries(trx).insertTenant({ name: 'Operator test', description: null, company: null }, organizationId);
      const endpoints = createWebhookEndpointQueries(trx, tenant.id);
      const endpointId = await endpoints.insertEndpoint({
        environmentId: null,
        url: `${receiver.url}${path}`,
        description: null,
        eventTypes: ['*'],
        active: true,
      });
      const secret = generateCredential('whsec');
      await endpoints.insertSecret(endpointId, encrypt(masterKey, secret), displayPrefix(secret));
      return { organizationId, tenant, tenantId: tenant.id, endpointId };
    });
  }

  const commitEvent = ({ organizationId, tenant }: Awaited<ReturnType<typeof tenantWithEndpoint>>) =>
    pool.transaction((trx) =>
      recordChange(trx, {
        actor: { type: 'system', id: null },
        action: 'tenant.update',
        resource: { type: 'tenant', id: tenant.id },
        scope: { organizationId, tenantId: tenant.id },
        event: { type: 'tenant.updated', data: { tenant, previous: {} } },
      }),
    );

  it("finds a tenant's first attempts and retrying deliveries by TenantId, with the attempt, next attempt time and why", async () => {
    const failing = await tenantWithEndpoint('/failing');
    const healthy = await tenantWithEndpoint('/healthy');
    receiver.script('/failing', 503, 503, 503);
    await commitEvent(failing);
    await commitEvent(healthy);
    await dispatcher.runOnce();

    // One first-attempt batch per tenant, each carrying its tenant and organization.
    const [failingBatch] = await listed(`TenantId = '${failing.tenantId}' AND WorkflowType = 'deliveryBatchWorkflow'`, 1);
    const [healthyBatch] = await listed(`OrganizationId = '${healthy.organizationId}'`, 1);
    expect(healthyBatch!.type).toBe('deliveryBatchWorkflow');
    expect(healthyBatch!.typedSearchAttributes.get(TenantIdKey)).toBe(healthy.tenantId);
    expect(failingBatch!.typedSearchAttributes.get(OrganizationIdKey)).toBe(failing.organizationId);
    const batchDescription = await client.workflow.getHandle(failingBatch!.workflowId).describe();
    expect(await batchDescription.staticSummary()).toMatch(/^First attempt of the new deliveries of a tenant \(batch [0-9a-f-]{36}\)$/);

    // The failing tenant's delivery continues in a workflow of its own, found by its tenant and endpoint; after its
    // third attempt got 503 too, it waits a minute for the fourth.
    const [retrying] = await listed(`TenantId = '${failing.tenantId}' AND EndpointId = '${failing.endpointId}' AND DeliveryAttempt = 3`, 1);
    expect(retrying!.type).toBe('webhookDeliveryWorkflow');
    expect(retrying!.status.name).toBe('RUNNING');
    const nextAt = retrying!.typedSearchAttributes.get(NextAttemptAtKey)!;
    expect(nextAt.getTime() - Date.now()).toBeGreaterThan(30_000);
    expect(await list(`NextAttemptAt > '${new Date().toISOString()}' AND EndpointId = '${failing.endpointId}'`)).toHaveLength(1);
    expect(await list(`TenantId = '${healthy.tenantId}' AND WorkflowType = 'webhookDeliveryWorkflow'`)).toEqual([]);

    const handle = client.workflow.getHandle(retrying!.workflowId);
    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(EndpointIdKey)).toBe(failing.endpointId);
    expect(description.typedSearchAttributes.get(DeliveryAttemptKey)).toBe(3);
    const deliveryId = retrying!.workflowId.slice('webhook-delivery:'.length);
    expect(retrying!.workflowId).toBe(processId('webhook-delivery', deliveryId));
    expect(await description.staticSummary()).toBe(`Delivers event delivery ${deliveryId} to a webhook endpoint, retrying (4 attempts)`);
    expect(await description.staticDetails()).toContain(`- webhook endpoint \`${failing.endpointId}\``);
    const metadata = (await handle.query('__temporal_workflow_metadata')) as { currentDetails?: string };
    expect(metadata.currentDetails).toBe(`attempt 3/4 got 503, next at ${nextAt.toISOString()}`);

    // The workflow, its activities and its timers say what they are for in the history.
    const summaries = (await handle.fetchHistory()).events!.flatMap((e) => {
      const summary = e.userMetadata?.summary;
      const kind = e.workflowExecutionStartedEventAttributes ? 'workflow' : e.activityTaskScheduledEventAttributes ? 'activity' : 'timer';
      return summary ? [`${kind}: ${defaultPayloadConverter.fromPayload<string>(summary)}`] : [];
    });
    expect(summaries).toEqual([
      `workflow: Delivers event delivery ${deliveryId} to a webhook endpoint, retrying (4 attempts)`,
      'timer: wait for attempt 2/4 (attempt 1/4 failed)',
      `activity: attempt 2/4 of delivery ${deliveryId}`,
      'timer: wait for attempt 3/4 (attempt 2/4 got 503)',
      `activity: attempt 3/4 of delivery ${deliveryId}`,
      'timer: wait for attempt 4/4 (attempt 3/4 got 503)',
    ]);
  });

  it('finds an invitation by its id and organization, and stops it with the signal named by its topic', async () => {
    const organizationId = await pool.transaction((trx) => createOrganizationQueries(trx).insertOrganization({ name: 'Operator test' }));
    const invitationId = await pool.oneFirst(sql.type(z.object({ id: z.uuid() }))`
      INSERT INTO organization_invitations (organization_id, email, token_hash, code_hash, expires_at)
      VALUES (${organizationId}, 'invitee@example.com', ${sql.binary(randomBytes(32))}, ${sql.binary(randomBytes(32))}, now() + interval '1 day')
      RETURNING id`);
    const id = processId('invitation-expiry', invitationId);
    await gateway.start('invitation-expiry', id, { invitationId, expiresAt: Date.now() + 86_400_000 }, { tenantId: null });

    const [found] = await listed(`InvitationId = '${invitationId}' AND OrganizationId = '${organizationId}'`, 1);
    expect(found!.workflowId).toBe(id);
    const handle = client.workflow.getHandle(id);
    expect(await (await handle.describe()).staticSummary()).toBe(`Expires organization invitation ${invitationId} when due`);
    await gateway.signal('invitation-expiry', id, 'invitation', { revoked: true });
    expect(await handle.result()).toBe('stopped');
    const signals = (await handle.fetchHistory()).events!.flatMap((e) => e.workflowExecutionSignaledEventAttributes?.signalName ?? []);
    expect(signals).toEqual(['invitation']);
  });

  it("finds a domain's verification by DomainId and TenantId", async () => {
    const { organizationId, tenantId } = await tenantWithEndpoint('/unused');
    const domainId = randomUUID();
    const id = processId('domain-verification', domainId);
    await gateway.start('domain-verification', id, { domainId, intervalsMs: [3_600_000], giveUpAfterMs: 86_400_000 }, { tenantId });
    const [found] = await listed(`DomainId = '${domainId}' AND TenantId = '${tenantId}' AND OrganizationId = '${organizationId}'`, 1);
    expect(found!.workflowId).toBe(id);
    expect(await (await client.workflow.getHandle(id).describe()).staticSummary()).toBe(`Verifies the DNS TXT record of tenant domain ${domainId}`);
  });
});
