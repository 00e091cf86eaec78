// Terminations posted through /v1/hris/v1, carried out by the environment's directory-sync process on both engines:
// one dated today is deprovisioned at once; one dated later is applied on its date, across a restart of the
// processes while it waits (the date is brought close in SQL, as the passing days would, and the process told).
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { ENGINES, startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';
import { EMPLOYEE, hris, patch, scimEnvironment, type ScimEnvironment } from '../helpers/scim.ts';

const POLL = { timeout: 30_000, interval: 100 };

let t: TestAppWithProcesses;
let env: ScimEnvironment;

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
const processId = () => `directory-sync:${env.environmentId}`;
const memberships = (userId: string) =>
  t.pool.anyFirst(sql.type(z.object({ id: z.uuid() }))`SELECT group_id AS id FROM group_members WHERE user_id = ${userId}`);
const deprovisioned = async (userId: string) =>
  (await tenantEvents(t, env.tenantId, { type: 'directory.user.deprovisioned' })).filter((e) => e.data.userId === userId);
const employee = async (id: string) => (await hris(t, env.token, 'GET', `/Employees/${id}`)).body;
const directoryActive = async (id: string) =>
  (await t.app.inject({ method: 'GET', url: `${env.base}/directory/users/${id}`, headers: bearer(await t.token()) })).json().user.active as boolean;
const outboxEntries = () =>
  t.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM process_outbox WHERE process_id = ${processId()}`);

async function hire() {
  const id = crypto.randomUUID().slice(0, 8);
  const dept = await hris(t, env.token, 'POST', '/Departments', { displayName: `Dept ${id}` });
  const res = await hris(t, env.token, 'POST', '/Employees', {
    schemas: [EMPLOYEE],
    externalId: `WD-${id}`,
    emails: [{ value: `${id}@corp.example`, type: 'work' }],
    department: { value: dept.body.id },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(await memberships(res.body.id)).toEqual([dept.body.id]);
  return { id: res.body.id as string, departmentId: dept.body.id as string };
}

/** Moves the user's pending deactivation to `inMs` from now and tells the process (the message a reschedule sends). */
async function bringForward(userId: string, inMs: number) {
  const dueAt = await t.pool.oneFirst(sql.type(z.object({ at: z.number() }))`
    UPDATE directory_lifecycle_changes SET due_at = now() + ${inMs} * interval '1 millisecond'
    WHERE user_id = ${userId} AND action = 'deactivate' AND applied_at IS NULL
    RETURNING (extract(epoch FROM due_at) * 1000)::float8 AS at`);
  await t.pool.query(sql.unsafe`
    INSERT INTO process_outbox (action, kind, process_id, topic, payload)
    VALUES ('signal', 'directory-sync', ${processId()}, 'directory', ${sql.jsonb({ type: 'schedule', dueAt })})`);
  return dueAt;
}

describe.each(ENGINES)('HRIS terminations by the directory-sync process (%s)', (engine) => {
  beforeAll(async () => {
    t = await startTestAppWithProcesses({ engine });
    env = await scimEnvironment(t, 'hris');
  });
  afterAll(() => t.close());

  it('deprovisions an employee terminated today at once: memberships removed, directory.user.deprovisioned', async () => {
    const { id, departmentId } = await hire();
    const res = await hris(
      t,
      env.token,
      'PATCH',
      `/Employees/${id}`,
      patch({ op: 'replace', value: { employmentStatus: 'TERMINATED', terminationDate: day(0) } }),
    );
    expect(res.body).toMatchObject({ employmentStatus: 'TERMINATED', active: false });
    await expect.poll(() => deprovisioned(id), POLL).toHaveLength(1);
    expect((await deprovisioned(id))[0]!.data).toMatchObject({ userId: id, reason: 'terminated' });
    expect(await memberships(id)).toEqual([]);
    expect((await tenantEvents(t, env.tenantId, { type: 'directory.group.member_removed' })).map((e) => e.data)).toContainEqual({
      groupId: departmentId,
      userId: id,
    });
  });

  it('applies a future termination on its date, across a restart of the processes while it waits', async () => {
    const { id } = await hire();
    const res = await hris(
      t,
      env.token,
      'PATCH',
      `/Employees/${id}`,
      patch({ op: 'replace', value: { employmentStatus: 'TERMINATED', terminationDate: day(1) } }),
    );
    expect(res.body).toMatchObject({ employmentStatus: 'ACTIVE', active: true, terminationDate: day(1) });
    await expect.poll(() => t.processStatus(processId()), POLL).toBe('running');

    const dueAt = await bringForward(id, 3000);
    await expect.poll(() => outboxEntries(), POLL).toBe(0);
    await t.restartProcesses();
    expect(await directoryActive(id)).toBe(true);

    await expect.poll(() => deprovisioned(id), POLL).toHaveLength(1);
    expect((await deprovisioned(id))[0]!.data).toMatchObject({ reason: 'terminated' });
    expect(await employee(id)).toMatchObject({ employmentStatus: 'TERMINATED', active: false, terminationDate: day(1) });
    expect(await directoryActive(id)).toBe(false);
    expect(await memberships(id)).toEqual([]);
    const [deactivation] = await auditEntries(t, { tenantId: env.tenantId }, { action: 'directory.user.deactivate', resourceId: id });
    expect(Date.parse(deactivation!.occurredAt)).toBeGreaterThanOrEqual(dueAt);
    expect(deactivation!.actor).toEqual({ type: 'system', id: 'directory-sync' });
  });
});
