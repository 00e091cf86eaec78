// The HR lifecycle over /v1/hris/v1 (the HRIS service decides, this proves it over HTTP): a future start is a
// prehire, a termination dated today deprovisions at once, one dated later waits, a rehire reactivates the same user.
// Every change is audited with the provisioning token as actor and emits hris.* and directory events.
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { EMPLOYEE, hris, patch, scimEnvironment, type ScimEnvironment } from '../helpers/scim.ts';

let t: TestApp;
let env: ScimEnvironment;
beforeAll(async () => {
  t = await startTestApp();
  env = await scimEnvironment(t, 'hris');
});
afterAll(() => t.close());

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
const worker = (extra: Record<string, unknown> = {}) => {
  const id = crypto.randomUUID().slice(0, 8);
  return { schemas: [EMPLOYEE], externalId: `WD-${id}`, employeeNumber: id, emails: [{ value: `${id}@corp.example`, type: 'work' }], ...extra };
};
const create = async (extra: Record<string, unknown> = {}) => {
  const res = await hris(t, env.token, 'POST', '/Employees', worker(extra));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};
const directoryUser = async (id: string) =>
  (await t.app.inject({ method: 'GET', url: `${env.base}/directory/users/${id}`, headers: bearer(await t.token()) })).json().user;
const events = async (type: string, id: string) =>
  (await tenantEvents(t, env.tenantId, { type })).filter(
    (e) => e.subject?.id === id || e.data.userId === id || (e.data.employee as { userId?: string } | undefined)?.userId === id,
  );
const memberships = (userId: string) =>
  t.pool.anyFirst(sql.type(z.object({ id: z.uuid() }))`SELECT group_id AS id FROM group_members WHERE user_id = ${userId}`);
const TOKEN = () => ({ type: 'provisioning_token', id: env.tokenId });

describe('HR lifecycle over HTTP', () => {
  it('a future startDate is a PREHIRE: inactive, and so is its directory user', async () => {
    const e = await create({ startDate: day(10) });
    expect(e).toMatchObject({ employmentStatus: 'PREHIRE', active: false, startDate: day(10) });
    expect((await directoryUser(e.id)).active).toBe(false);
  });

  it('a termination dated today is effective at once: inactive, deprovisioned, audited with the token as actor', async () => {
    const dept = (await hris(t, env.token, 'POST', '/Departments', { displayName: `Sales ${crypto.randomUUID().slice(0, 8)}` })).body;
    const e = await create({ department: { value: dept.id } });
    expect(await memberships(e.id)).toEqual([dept.id]);
    const res = await hris(
      t,
      env.token,
      'PATCH',
      `/Employees/${e.id}`,
      patch({ op: 'replace', path: 'employmentStatus', value: 'TERMINATED' }, { op: 'add', path: 'terminationDate', value: day(0) }),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ employmentStatus: 'TERMINATED', active: false, terminationDate: day(0) });
    expect((await directoryUser(e.id)).active).toBe(false);
    expect(await events('hris.employee.terminated', e.id)).toHaveLength(1);
    expect(await events('directory.user.deactivated', e.id)).toHaveLength(1);
    const [terminate] = await auditEntries(t, { tenantId: env.tenantId }, { action: 'hris.employee.terminate', resourceId: e.id });
    expect(terminate!.actor).toEqual(TOKEN());
    const [deactivate] = await auditEntries(t, { tenantId: env.tenantId }, { action: 'directory.user.deactivate', resourceId: e.id });
    expect(deactivate!.actor).toEqual(TOKEN());
    // The deprovisioning (memberships, the directory.user.deprovisioned event) is the directory-sync process's
    // (test/processes/hris-termination.test.ts); here it is recorded for it in the same transaction.
    const pending = await t.pool.anyFirst(sql.type(z.object({ reason: z.string() }))`SELECT reason FROM directory_deprovisionings WHERE user_id = ${e.id}`);
    expect(pending).toEqual(['terminated']);
  });

  it('a termination dated later leaves the employee active until then', async () => {
    const e = await create();
    const res = await hris(
      t,
      env.token,
      'PATCH',
      `/Employees/${e.id}`,
      patch({ op: 'replace', value: { employmentStatus: 'TERMINATED', terminationDate: day(14) } }),
    );
    expect(res.body).toMatchObject({ employmentStatus: 'ACTIVE', active: true, terminationDate: day(14) });
    expect((await directoryUser(e.id)).active).toBe(true);
    expect(await events('hris.employee.terminated', e.id)).toHaveLength(0);
  });

  it('a rehire (PUT back to ACTIVE with the same externalId) reactivates the same user', async () => {
    const body = worker();
    const e = (await hris(t, env.token, 'POST', '/Employees', { ...body, employmentStatus: 'TERMINATED' })).body;
    expect(e).toMatchObject({ employmentStatus: 'TERMINATED', active: false });
    const res = await hris(t, env.token, 'PUT', `/Employees/${e.id}`, { ...body, employmentStatus: 'ACTIVE', startDate: day(0) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: e.id, externalId: body.externalId, employmentStatus: 'ACTIVE', active: true });
    expect(res.body.terminationDate).toBeUndefined();
    expect((await directoryUser(e.id)).active).toBe(true);
    expect(await events('hris.employee.rehired', e.id)).toHaveLength(1);
    expect(await events('directory.user.activated', e.id)).toHaveLength(1);
    const [rehire] = await auditEntries(t, { tenantId: env.tenantId }, { action: 'hris.employee.rehire', resourceId: e.id });
    expect(rehire!.actor).toEqual(TOKEN());
  });
});
