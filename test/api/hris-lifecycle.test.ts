// The HR lifecycle through the HRIS service functions (the HTTP surface comes later and calls these), on a real
// Postgres: employees are directory users, departments directory groups; prehires, terminations (now or dated),
// rehires, references, versions and conflicts. No processes run here: future-dated changes are left scheduled.
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FILTERABLE_EMPLOYEE_COLUMNS } from '../../db/provisioning/hris/employees.ts';
import { createDepartmentService } from '../../api/families/provisioning/hris/departments-service.ts';
import { createEmployeeService } from '../../api/families/provisioning/hris/employees-service.ts';
import type { EmployeeInput } from '../../api/families/provisioning/hris/employee-mapping.ts';
import type { EnvironmentCaller } from '../../api/access/caller.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { hrisCaller } from '../helpers/hris.ts';

let t: TestApp;
let caller: EnvironmentCaller;
let employees: ReturnType<typeof createEmployeeService>;
let departments: ReturnType<typeof createDepartmentService>;

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
const unique = () => crypto.randomUUID().slice(0, 8);
const person = (extra: EmployeeInput = {}): EmployeeInput => {
  const id = unique();
  return {
    externalId: `WD-${id}`,
    employeeNumber: id,
    emails: [{ value: `${id}@corp.example`, type: 'work' }],
    name: { givenName: 'Ana', familyName: id },
    ...extra,
  };
};
const scheduled = (userId: string) =>
  t.pool.any(sql.type(z.object({ action: z.string(), dueAt: z.string() }))`
    SELECT action, to_char(due_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS "dueAt" FROM directory_lifecycle_changes
    WHERE user_id = ${userId} AND applied_at IS NULL ORDER BY action`);
const deprovisionings = (userId: string) =>
  t.pool.anyFirst(sql.type(z.object({ reason: z.string() }))`SELECT reason FROM directory_deprovisionings WHERE user_id = ${userId} ORDER BY created_at`);
const groupsOf = (userId: string) => t.pool.anyFirst(sql.type(z.object({ id: z.uuid() }))`SELECT group_id AS id FROM group_members WHERE user_id = ${userId}`);
const eventsOf = async (type: string, id: string) =>
  (await tenantEvents(t, t.credentials.tenantId, { type })).filter((e) => e.subject?.id === id || e.data.userId === id);

beforeAll(async () => {
  t = await startTestApp();
  const environmentId = (await newEnvironments(t)).environmentIds[0]!;
  caller = await hrisCaller(t, environmentId);
  employees = createEmployeeService(t.pool);
  departments = createDepartmentService(t.pool);
});
afterAll(() => t.close());

describe('HRIS employees', () => {
  it('creates an active employee as a directory user carrying its HR fields as attributes', async () => {
    const { department } = await departments.create(caller, { displayName: `Platform ${unique()}`, code: 'PLAT' });
    const input = person({ startDate: day(-30), employmentType: 'FULL_TIME', departmentId: department.groupId, costCenter: 'CC-1', division: 'R&D' });
    const { employee, user } = await employees.create(caller, input);

    expect(employee).toMatchObject({ employmentStatus: 'ACTIVE', startDate: day(-30), terminationDate: null, departmentId: department.groupId, version: 1 });
    expect(user).toMatchObject({ id: employee.userId, externalId: input.externalId, userName: input.emails![0]!.value, active: true });
    expect(user.attributes).toMatchObject({
      employeeNumber: input.employeeNumber,
      employmentStatus: 'ACTIVE',
      employmentType: 'FULL_TIME',
      departmentId: department.groupId,
      costCenter: 'CC-1',
      division: 'R&D',
    });
    expect((await eventsOf('hris.employee.created', user.id)).map((e) => e.data.employee)).toEqual([employee]);
    expect(await eventsOf('directory.user.created', user.id)).toHaveLength(1);
    expect(await scheduled(user.id)).toEqual([]);
  });

  it('a prehire is inactive until its start date, when its activation is scheduled for the directory-sync process', async () => {
    const { employee, user } = await employees.create(caller, person({ startDate: day(10) }));
    expect(employee.employmentStatus).toBe('PREHIRE');
    expect(user.active).toBe(false);
    expect(await scheduled(user.id)).toEqual([{ action: 'activate', dueAt: day(10) }]);
    const outbox = await t.pool.any(sql.type(z.object({ action: z.string(), topic: z.string().nullable() }))`
      SELECT action, topic FROM process_outbox WHERE process_id = ${`directory-sync:${caller.scope.environmentId}`} ORDER BY id DESC LIMIT 2`);
    expect(outbox).toEqual([
      { action: 'signal', topic: 'directory' },
      { action: 'start', topic: null },
    ]);
    // The start moves to the past: active at once, nothing left scheduled.
    const started = await employees.patch(caller, user.id, (current) => ({ ...current, startDate: day(-1) }));
    expect(started.employee.employmentStatus).toBe('ACTIVE');
    expect(started.user.active).toBe(true);
    expect(await scheduled(user.id)).toEqual([]);
  });

  it('a termination dated in the future waits for that day; one dated today takes effect at once and is deprovisioned', async () => {
    const { user } = await employees.create(caller, person());
    const later = await employees.patch(caller, user.id, (c) => ({ ...c, employmentStatus: 'TERMINATED', terminationDate: day(14) }));
    expect(later.employee).toMatchObject({ employmentStatus: 'ACTIVE', terminationDate: day(14) });
    expect(later.user.active).toBe(true);
    expect(await scheduled(user.id)).toEqual([{ action: 'deactivate', dueAt: day(14) }]);

    const now = await employees.patch(caller, user.id, (c) => ({ ...c, employmentStatus: 'TERMINATED', terminationDate: day(0) }));
    expect(now.employee).toMatchObject({ employmentStatus: 'TERMINATED', terminationDate: day(0), version: 3 });
    expect(now.user.active).toBe(false);
    expect(now.user.attributes.employmentStatus).toBe('TERMINATED');
    expect(await scheduled(user.id)).toEqual([]);
    expect(await deprovisionings(user.id)).toEqual(['terminated']);
    expect(await eventsOf('hris.employee.terminated', user.id)).toHaveLength(1);
    expect(await eventsOf('directory.user.deactivated', user.id)).toHaveLength(1);
  });

  it('a rehire reactivates the same user under the same externalId', async () => {
    const input = person({ employmentStatus: 'TERMINATED' });
    const { user } = await employees.create(caller, input);
    expect(user.active).toBe(false);
    const { employee, user: rehired } = await employees.replace(caller, user.id, { ...input, employmentStatus: 'ACTIVE', startDate: day(0) });
    expect(rehired).toMatchObject({ id: user.id, externalId: input.externalId, active: true });
    expect(employee).toMatchObject({ employmentStatus: 'ACTIVE', terminationDate: null });
    expect(await eventsOf('hris.employee.rehired', user.id)).toHaveLength(1);
  });

  it('LEAVE keeps the user active; a write over a stale version is refused', async () => {
    const { user } = await employees.create(caller, person());
    const leave = await employees.patch(caller, user.id, (c) => ({ ...c, employmentStatus: 'LEAVE' }), { expectedVersion: 1 });
    expect(leave.employee).toMatchObject({ employmentStatus: 'LEAVE', version: 2 });
    expect(leave.user.active).toBe(true);
    await expect(employees.patch(caller, user.id, (c) => ({ ...c, title: 'Stale' }), { expectedVersion: 1 })).rejects.toMatchObject({
      statusCode: 412,
      code: 'hris.employee_version_mismatch',
    });
  });

  it('refuses an unknown department or manager as an invalid value, and a taken employeeNumber or externalId with 409', async () => {
    const missing = crypto.randomUUID();
    await expect(employees.create(caller, person({ departmentId: missing }))).rejects.toMatchObject({
      statusCode: 400,
      code: 'hris.invalid_value',
      details: [{ path: 'departmentId', message: expect.stringContaining(missing) }],
    });
    await expect(employees.create(caller, person({ managerId: missing }))).rejects.toMatchObject({ statusCode: 400, code: 'hris.invalid_value' });
    const { user } = await employees.create(caller, person());
    await expect(employees.patch(caller, user.id, (c) => ({ ...c, managerId: user.id }))).rejects.toMatchObject({
      statusCode: 400,
      code: 'hris.invalid_value',
    });

    const first = person();
    await employees.create(caller, first);
    await expect(employees.create(caller, person({ employeeNumber: first.employeeNumber! }))).rejects.toMatchObject({
      statusCode: 409,
      code: 'hris.employee_number_taken',
    });
    await expect(employees.create(caller, person({ externalId: first.externalId! }))).rejects.toMatchObject({
      statusCode: 409,
      code: 'directory.external_id_taken',
    });
  });

  it('lists with the conditions a filter translates to, and answers 404 from another environment', async () => {
    const { user } = await employees.create(caller, person({ employmentStatus: 'LEAVE', division: `div-${unique()}` }));
    const { employee } = await employees.get(caller, user.id);
    const where = [sql.fragment`${FILTERABLE_EMPLOYEE_COLUMNS.division!} = ${employee.division}`];
    const page = await employees.list(caller, { limit: 10, offset: 0 }, where);
    expect(page).toEqual({ employees: [{ employee, user: expect.objectContaining({ id: user.id }) }], total: 1 });

    const elsewhere = await hrisCaller(t, t.credentials.environmentId);
    await expect(employees.get(elsewhere, user.id)).rejects.toMatchObject({ statusCode: 404, code: 'employee.not_found' });
  });

  it('deletes an employee with its user (deprovisioned as deleted)', async () => {
    const { user } = await employees.create(caller, person());
    expect(await employees.remove(caller, user.id)).toEqual({ success: true, id: user.id });
    await expect(employees.get(caller, user.id)).rejects.toMatchObject({ statusCode: 404 });
    expect(await deprovisionings(user.id)).toEqual(['deleted']);
    expect(await eventsOf('hris.employee.deleted', user.id)).toHaveLength(1);
  });
});

describe('HRIS departments', () => {
  it('keeps the hierarchy free of cycles and refuses to delete a department with employees or children', async () => {
    const parent = await departments.create(caller, { displayName: `Engineering ${unique()}`, type: 'DIVISION' });
    const child = await departments.create(caller, { displayName: `Platform ${unique()}`, parentId: parent.group.id, costCenter: 'CC-4100' });
    expect(child.group).toMatchObject({ name: child.group.name, attributes: { type: 'DEPARTMENT', costCenter: 'CC-4100', parentId: parent.group.id } });
    expect(child.department).toMatchObject({ parentId: parent.group.id, type: 'DEPARTMENT', active: true, version: 1 });

    await expect(departments.patch(caller, parent.group.id, (c) => ({ ...c, parentId: child.group.id }))).rejects.toMatchObject({
      statusCode: 400,
      code: 'hris.department_cycle',
    });
    await expect(departments.patch(caller, parent.group.id, (c) => ({ ...c, parentId: crypto.randomUUID() }))).rejects.toMatchObject({
      statusCode: 400,
      code: 'hris.invalid_value',
    });
    await expect(departments.remove(caller, parent.group.id)).rejects.toMatchObject({ statusCode: 409, code: 'hris.department_not_empty' });

    const { user } = await employees.create(caller, person({ departmentId: child.group.id }));
    expect(user.attributes.department).toBe(child.group.name);
    expect(await groupsOf(user.id)).toEqual([child.group.id]); // roles of the department hold for its employees
    await expect(departments.remove(caller, child.group.id)).rejects.toMatchObject({ statusCode: 409, code: 'hris.department_not_empty' });

    await employees.patch(caller, user.id, (c) => ({ ...c, departmentId: parent.group.id }));
    expect(await groupsOf(user.id)).toEqual([parent.group.id]);
    await employees.patch(caller, user.id, (c) => ({ ...c, departmentId: null }));
    expect(await groupsOf(user.id)).toEqual([]);
    expect(await departments.remove(caller, child.group.id)).toEqual({ success: true, id: child.group.id });
    expect(await departments.remove(caller, parent.group.id)).toEqual({ success: true, id: parent.group.id });
    await expect(departments.get(caller, parent.group.id)).rejects.toMatchObject({ statusCode: 404, code: 'department.not_found' });
    expect((await eventsOf('hris.department.deleted', child.group.id)).map((e) => e.actor.type)).toEqual(['user']);
  });
});

describe('deprovisioning trigger', () => {
  it('does not hold up the delete of a project whose environments have users and employees', async () => {
    const { tenantId } = t.credentials;
    const headers = bearer(await t.token());
    const created = await t.app.inject({ method: 'POST', url: `/v1/tenants/${tenantId}/projects`, headers, payload: { name: `P ${unique()}` } });
    const { project, environments } = created.json() as { project: { id: string }; environments: { id: string }[] };
    await employees.create(await hrisCaller(t, environments[0]!.id), person());
    const res = await t.app.inject({ method: 'DELETE', url: `/v1/tenants/${tenantId}/projects/${project.id}`, headers });
    expect(res.statusCode, res.body).toBe(200);
  });
});
