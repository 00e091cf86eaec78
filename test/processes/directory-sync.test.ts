// The directory-sync process of an environment, on both engines: a user deactivated or deleted through any path is
// deprovisioned (memberships removed, tokens revoked, `directory.user.deprovisioned` emitted and delivered to the
// channels subscribed to it); HR lifecycle changes dated in the future are applied when due, across a restart;
// the sweeper starts the process of an environment whose work waits with no process.
import { sql } from 'slonik';
import { z } from 'zod';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EnvironmentIdKey, OrganizationIdKey, TenantIdKey } from '../../workflows/search-attributes.ts';
import { startSweeper } from '../../worker/sweeper.ts';
import { createEmployeeService } from '../../api/families/provisioning/hris/employees-service.ts';
import { bearer } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { hrisCaller } from '../helpers/hris.ts';
import { ENGINES, startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { userPrincipal } from '../helpers/users.ts';

const POLL = { timeout: 30_000, interval: 100 };
const SYSTEM = { type: 'system', id: 'directory-sync' };

let t: TestAppWithProcesses;
let token: string;
let tenantId: string;
let environmentId: string;
let receiver: Receiver;

const directory = (path: string) => `/v1/tenants/${tenantId}/environments/${environmentId}/directory${path}`;
async function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) {
  const res = await t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
}
const newGroup = async () => (await call('POST', directory('/groups'), { name: `g-${crypto.randomUUID().slice(0, 8)}` })).group.id as string;

/** A directory user with a personal access token, in two groups. */
async function provisionedUser() {
  const { user } = await userPrincipal(t, { environmentId });
  const groups = [await newGroup(), await newGroup()].sort();
  for (const g of groups) await call('PUT', directory(`/groups/${g}/members/${user.id}`));
  return { userId: user.id, groups };
}
const memberships = (userId: string) =>
  t.pool.anyFirst(sql.type(z.object({ id: z.uuid() }))`SELECT group_id AS id FROM group_members WHERE user_id = ${userId}`);
const activeTokens = (userId: string) =>
  t.pool.oneFirst(
    sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM personal_access_tokens WHERE user_id = ${userId} AND revoked_at IS NULL`,
  );
const deprovisioned = async (userId: string) =>
  (await tenantEvents(t, tenantId, { type: 'directory.user.deprovisioned' })).filter((e) => e.data.userId === userId);
const isActive = async (userId: string) => (await call('GET', directory(`/users/${userId}`))).user.active as boolean;
const processId = () => `directory-sync:${environmentId}`;
const outboxEntries = () =>
  t.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM process_outbox WHERE process_id = ${processId()}`);

describe.each(ENGINES)('directory sync process (%s)', (engine) => {
  beforeAll(async () => {
    receiver = await startReceiver();
    t = await startTestAppWithProcesses({ engine });
    token = await t.token();
    tenantId = t.credentials.tenantId;
    environmentId = (await newEnvironments(t, token)).environmentIds[0]!;
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('deprovisions a user deactivated through the directory API: memberships removed, tokens revoked, channels told', async () => {
    const channel = await call('POST', `/v1/tenants/${tenantId}/notification-channels`, {
      kind: 'webhook',
      name: 'deprovisioning',
      eventTypes: ['directory.user.deprovisioned'],
      config: { url: `${receiver.url}/deprovisioned` },
      secrets: {},
    });
    expect(channel.channel.id).toBeDefined();
    const { userId, groups } = await provisionedUser();
    expect(await activeTokens(userId)).toBe(1);

    await call('POST', directory(`/users/${userId}/deactivate`));

    await expect.poll(() => deprovisioned(userId), POLL).toHaveLength(1);
    const [event] = await deprovisioned(userId);
    expect(event).toMatchObject({ actor: SYSTEM, environmentId, subject: { type: 'user', id: userId } });
    expect(event!.data).toEqual({
      userId,
      reason: 'deactivated',
      removed: { groups, personalAccessTokens: [expect.any(String)], elevateGrants: [], impersonationGrants: [] },
    });
    expect(await memberships(userId)).toEqual([]);
    expect(await activeTokens(userId)).toBe(0);
    const removedEvents = (await tenantEvents(t, tenantId, { type: 'directory.group.member_removed' })).filter((e) => e.data.userId === userId);
    expect(removedEvents.map((e) => [e.actor, e.data.groupId]).sort()).toEqual(groups.map((g) => [SYSTEM, g]));
    const audit = await auditEntries(t, { tenantId }, { action: 'directory.user.deprovision', resourceId: userId });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor: SYSTEM, environmentId });

    await expect.poll(() => receiver.received.filter((r) => r.path === '/deprovisioned').length, POLL).toBe(1);
    const delivered = JSON.parse(receiver.received.find((r) => r.path === '/deprovisioned')!.body);
    expect(JSON.stringify(delivered)).toContain(userId);
  });

  it.runIf(engine === 'temporal')('is found in Temporal UI by its tenant, organization and environment', async () => {
    const server = inject('temporal')!;
    const client = new Client({ connection: await Connection.connect({ address: server.address }), namespace: server.namespace });
    try {
      // A deactivation of its own, so the environment's process exists whatever ran before in this file.
      const { userId } = await provisionedUser();
      await call('POST', directory(`/users/${userId}/deactivate`));
      await expect.poll(() => deprovisioned(userId), POLL).toHaveLength(1);
      const { typedSearchAttributes } = await client.workflow.getHandle(processId()).describe();
      expect(typedSearchAttributes.get(EnvironmentIdKey)).toBe(environmentId);
      expect(typedSearchAttributes.get(TenantIdKey)).toBe(tenantId);
      expect(typedSearchAttributes.get(OrganizationIdKey)).toBe(t.credentials.organizationId);
    } finally {
      await client.connection.close();
    }
  });

  it('deprovisions a deleted user with what its delete took along', async () => {
    const { userId, groups } = await provisionedUser();
    const [tokenId] = await t.pool.anyFirst(sql.type(z.object({ id: z.uuid() }))`SELECT id FROM personal_access_tokens WHERE user_id = ${userId}`);

    await call('DELETE', directory(`/users/${userId}`));

    await expect.poll(() => deprovisioned(userId), POLL).toHaveLength(1);
    const [event] = await deprovisioned(userId);
    expect(event!.data).toEqual({
      userId,
      reason: 'deleted',
      removed: { groups, personalAccessTokens: [tokenId], elevateGrants: [], impersonationGrants: [] },
    });
    const removedEvents = (await tenantEvents(t, tenantId, { type: 'directory.group.member_removed' })).filter((e) => e.data.userId === userId);
    expect(removedEvents.map((e) => e.data.groupId).sort()).toEqual(groups);
  });

  it('terminates an employee on its termination date, across a restart of the processes while it waits', { timeout: 90_000 }, async () => {
    const employees = createEmployeeService(t.pool);
    const caller = await hrisCaller(t, environmentId);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const { employee } = await employees.create(caller, {
      externalId: `wd-${crypto.randomUUID().slice(0, 8)}`,
      employeeNumber: crypto.randomUUID().slice(0, 8),
      emails: [{ value: `leaver-${crypto.randomUUID().slice(0, 8)}@corp.example`, type: 'work' }],
      employmentStatus: 'TERMINATED',
      terminationDate: tomorrow,
    });
    const userId = employee.userId;
    await call('PUT', directory(`/groups/${await newGroup()}/members/${userId}`));
    expect(employee.employmentStatus).toBe('ACTIVE');
    await expect.poll(() => t.processStatus(processId()), POLL).toBe('running');

    // The night passes: the change comes due in 12 s (what the process is told by a `schedule` message); the
    // processes restart while it waits. Longer than a restart takes under load (3 s was not: the user was already
    // deactivated when the restart returned).
    const dueAt = await bringForward(userId, 'deactivate', 12_000);
    await expect.poll(() => outboxEntries(), POLL).toBe(0);
    await t.restartProcesses();
    expect(await isActive(userId)).toBe(true);

    await expect.poll(() => deprovisioned(userId), POLL).toHaveLength(1);
    expect((await deprovisioned(userId))[0]!.data).toMatchObject({ reason: 'terminated' });
    expect(await isActive(userId)).toBe(false);
    expect((await employees.get(caller, userId)).employee.employmentStatus).toBe('TERMINATED');
    const [deactivation] = await auditEntries(t, { tenantId }, { action: 'directory.user.deactivate', resourceId: userId });
    expect(Date.parse(deactivation!.occurredAt)).toBeGreaterThanOrEqual(dueAt);
    expect(deactivation!.actor).toEqual(SYSTEM);
    expect(await memberships(userId)).toEqual([]);
  });

  it('activates a prehire on its start date', async () => {
    const employees = createEmployeeService(t.pool);
    const caller = await hrisCaller(t, environmentId);
    const start = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
    const { employee, user } = await employees.create(caller, {
      externalId: `wd-${crypto.randomUUID().slice(0, 8)}`,
      emails: [{ value: `joiner-${crypto.randomUUID().slice(0, 8)}@corp.example`, type: 'work' }],
      startDate: start,
    });
    expect(employee.employmentStatus).toBe('PREHIRE');
    expect(user.active).toBe(false);

    await bringForward(employee.userId, 'activate', 1500);
    await expect.poll(() => isActive(employee.userId), POLL).toBe(true);
    expect((await employees.get(caller, employee.userId)).employee.employmentStatus).toBe('ACTIVE');
    const started = (await tenantEvents(t, tenantId, { type: 'hris.employee.started' })).filter((e) => e.subject?.id === employee.userId);
    expect(started).toHaveLength(1);
    expect(started[0]!.actor).toEqual(SYSTEM);
  });

  it('ends when idle, and the next deactivation starts a new run', async () => {
    const { environmentIds } = await newEnvironments(t, token);
    environmentId = environmentIds[0]!;
    await t.processes.gateway.start('directory-sync', processId(), { environmentId, idleMs: 200 }, { tenantId });
    await expect.poll(() => t.processStatus(processId()), POLL).toBe('completed');

    const { userId, groups } = await provisionedUser();
    await call('POST', directory(`/users/${userId}/deactivate`));
    await expect.poll(() => deprovisioned(userId), POLL).toHaveLength(1);
    expect((await deprovisioned(userId))[0]!.data.removed).toMatchObject({ groups });
  });

  it('the sweeper starts the process of an environment whose deprovisioning has none', async () => {
    const { environmentIds } = await newEnvironments(t, token);
    environmentId = environmentIds[0]!;
    const { userId } = await provisionedUser();
    await t.processes.stop();
    await call('POST', directory(`/users/${userId}/deactivate`));
    await t.pool.query(sql.unsafe`DELETE FROM process_outbox WHERE process_id = ${processId()}`); // the start is lost
    await t.restartProcesses();
    expect(await t.processStatus(processId())).toBe('unknown');

    const sweeper = startSweeper({
      pool: t.pool,
      gateway: t.processes.gateway,
      scheduleMs: [0],
      domains: { verificationIntervalsMs: [3_600_000], verificationGiveUpMs: 86_400_000 },
      intervalMs: 100,
      graceMs: 0,
      onError: () => {},
      log: () => {},
    });
    try {
      await expect.poll(() => deprovisioned(userId), POLL).toHaveLength(1);
      expect(await memberships(userId)).toEqual([]);
    } finally {
      await sweeper.stop();
    }
  });
});

/**
 * Moves a scheduled lifecycle change of the user to `inMs` from now, as the passing of the days until its date would,
 * and tells the process (the message a reschedule sends). Returns when it is due (ms).
 */
async function bringForward(userId: string, action: 'activate' | 'deactivate', inMs: number) {
  const dueAt = await t.pool.oneFirst(sql.type(z.object({ at: z.number() }))`
    UPDATE directory_lifecycle_changes SET due_at = now() + ${inMs} * interval '1 millisecond'
    WHERE user_id = ${userId} AND action = ${action} AND applied_at IS NULL
    RETURNING (extract(epoch FROM due_at) * 1000)::float8 AS at`);
  await t.pool.query(sql.unsafe`
    INSERT INTO process_outbox (action, kind, process_id, topic, payload)
    VALUES ('signal', 'directory-sync', ${processId()}, 'directory', ${sql.jsonb({ type: 'schedule', dueAt })})`);
  return dueAt;
}
