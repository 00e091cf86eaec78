// Employees of an environment's HR system: each one a directory user with HR fields (hris_employees), written only
// through here so the two stay one record. The HR lifecycle (db/provisioning/hris/lifecycle.ts) decides the user's
// `active`: a prehire is inactive until its start date, a termination dated in the future waits for that day (the
// directory-sync process applies both), a rehire reactivates the same user. A deactivation or delete, whichever
// path makes it, is deprovisioned by the directory-sync process (trigger on `users`).
import type { DatabasePool, DatabaseTransactionConnection, FragmentSqlToken } from 'slonik';
import { createGroupQueries } from '../../../../db/directory/groups/queries.ts';
import { createDirectoryUserQueries } from '../../../../db/directory/users/queries.ts';
import type { DirectoryUser } from '../../../../db/directory/users/rows.ts';
import { createEmployeeQueries } from '../../../../db/provisioning/hris/employees.ts';
import { createDepartmentQueries } from '../../../../db/provisioning/hris/departments.ts';
import { dayOf, effectiveEmployment } from '../../../../db/provisioning/hris/lifecycle.ts';
import type { Employee } from '../../../../db/provisioning/hris/rows.ts';
import type { PageRequest } from '../../../../db/shared/pages.ts';
import { notFound, orNotFound, withDatabaseErrors } from '../../../errors.ts';
import { notOperator } from '../../../../db/directory/users/protected.ts';
import { endGrantsIfDeactivated } from '../../../access/deactivation.ts';
import { guardOperator, hiddenOperator } from '../../../access/protected-operators.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { employeeFields, employeeInputOf, userFields, type EmployeeInput, type EmployeeRecord } from './employee-mapping.ts';
import { syncDepartmentMembership } from './department-membership.ts';
import { scheduleEmployment } from './lifecycle-schedule.ts';
import { invalidValue, versionMismatch, type WriteOptions } from './checks.ts';

type Trx = DatabaseTransactionConnection;

/** The event of an employee's write, by how its status moved. */
function employeeEvent(before: Employee | null, after: Employee) {
  const data = { employee: after };
  if (!before) return { verb: 'create', event: { type: 'hris.employee.created', data } } as const;
  if (before.employmentStatus === 'TERMINATED' && after.employmentStatus !== 'TERMINATED')
    return { verb: 'rehire', event: { type: 'hris.employee.rehired', data } } as const;
  if (before.employmentStatus !== 'TERMINATED' && after.employmentStatus === 'TERMINATED')
    return { verb: 'terminate', event: { type: 'hris.employee.terminated', data } } as const;
  return { verb: 'update', event: { type: 'hris.employee.updated', data } } as const;
}

/** The directory event of the user's write: its `active` moved, or it changed otherwise. */
function userEvent(before: DirectoryUser | null, user: DirectoryUser) {
  if (!before) return { verb: 'create', event: { type: 'directory.user.created', data: { user } } } as const;
  if (before.active && !user.active) return { verb: 'deactivate', event: { type: 'directory.user.deactivated', data: { user } } } as const;
  if (!before.active && user.active) return { verb: 'activate', event: { type: 'directory.user.activated', data: { user } } } as const;
  return { verb: 'update', event: { type: 'directory.user.updated', data: { user } } } as const;
}

export function createEmployeeService(pool: DatabasePool, clock: () => Date = () => new Date()) {
  const find = async (db: Trx | DatabasePool, caller: EnvironmentCaller, id: string, lock: 'update' | null = null): Promise<EmployeeRecord> => {
    const employee = await orNotFound(createEmployeeQueries(db, caller.scope.environmentId).findEmployee(id, lock), 'employee', id);
    if (await hiddenOperator(db, caller, id)) throw notFound('employee', id); // the service's operators are no customer's employees
    const user = await createDirectoryUserQueries(db, caller.scope.environmentId).findUser(id, lock);
    return { employee, user: user! };
  };

  /** The department's name (for the user's attributes); an unknown department or manager is an invalid value. */
  const checkReferences = async (trx: Trx, caller: EnvironmentCaller, input: EmployeeInput, userId: string | null) => {
    const { environmentId } = caller.scope;
    let departmentName: string | null = null;
    if (input.departmentId) {
      const department = await createDepartmentQueries(trx, environmentId).findDepartment(input.departmentId, 'key share');
      if (!department) throw invalidValue('departmentId', `names no department of this environment (${input.departmentId})`);
      departmentName = (await createGroupQueries(trx, environmentId).findGroup(input.departmentId))?.name ?? null;
    }
    if (input.managerId) {
      const other = input.managerId !== userId && !(await hiddenOperator(trx, caller, input.managerId));
      const manager = other ? await createDirectoryUserQueries(trx, environmentId).findUser(input.managerId, 'key share') : null;
      if (!manager) throw invalidValue('managerId', `names no other user of this environment (${input.managerId})`);
    }
    return departmentName;
  };

  /** Writes `input` over `before` (null: a new employee): HR record first, so a deactivation's trigger sees the status. */
  const write = async (trx: Trx, caller: EnvironmentCaller, input: EmployeeInput, before: EmployeeRecord | null): Promise<EmployeeRecord> => {
    const departmentName = await checkReferences(trx, caller, input, before?.user.id ?? null);
    const employment = effectiveEmployment(
      input.employmentStatus,
      before?.employee.employmentStatus ?? null,
      {
        startDate: input.startDate ?? null,
        terminationDate: input.terminationDate ?? null,
      },
      dayOf(clock()),
    );
    const fields = employeeFields(input, employment);
    const { environmentId } = caller.scope;
    const users = createDirectoryUserQueries(trx, environmentId);
    const employees = createEmployeeQueries(trx, environmentId);
    let employee: Employee;
    let user: DirectoryUser;
    if (before) {
      employee = await employees.updateEmployee(before.user.id, fields);
      user = await users.updateUser(before.user.id, userFields(input, fields, employment.active, departmentName, before.user));
    } else {
      user = await users.insertUser(userFields(input, fields, employment.active, departmentName, null));
      employee = await employees.insertEmployee(user.id, fields);
    }
    const u = userEvent(before?.user ?? null, user);
    await record(trx, caller, {
      action: `directory.user.${u.verb}`,
      resource: { type: 'user', id: user.id },
      before: before?.user ?? null,
      after: user,
      event: u.event,
    });
    await endGrantsIfDeactivated(trx, caller, before?.user ?? null, user);
    const e = employeeEvent(before?.employee ?? null, employee);
    await record(trx, caller, {
      action: `hris.employee.${e.verb}`,
      resource: { type: 'employee', id: user.id },
      before: before?.employee ?? null,
      after: employee,
      event: e.event,
    });
    await syncDepartmentMembership(trx, caller, before?.employee ?? null, employee);
    await scheduleEmployment(trx, caller, user.id, employment);
    return { employee, user };
  };

  const replace = (caller: EnvironmentCaller, id: string, change: (current: EmployeeRecord) => EmployeeInput, options: WriteOptions = {}) =>
    withDatabaseErrors(() =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id, 'update');
        await guardOperator(trx, caller, id);
        if (options.expectedVersion !== undefined && options.expectedVersion !== before.employee.version)
          throw versionMismatch('employee', before.employee.version);
        return write(trx, caller, change(before), before);
      }),
    );

  return {
    get: (caller: EnvironmentCaller, id: string) => find(pool, caller, id),

    /** A page of the environment's employees matching `where` (fragments over `u` users and `e` hris_employees). */
    list: async (caller: EnvironmentCaller, page: PageRequest, where: FragmentSqlToken[] = []) => {
      const visible = caller.actor.type === 'provisioning_token' ? [...where, notOperator()] : where;
      const { items, total } = await createEmployeeQueries(pool, caller.scope.environmentId).findEmployees(visible, page);
      const users = createDirectoryUserQueries(pool, caller.scope.environmentId);
      const records = await Promise.all(items.map(async (employee) => ({ employee, user: (await users.findUser(employee.userId))! })));
      return { employees: records, total };
    },

    create: (caller: EnvironmentCaller, input: EmployeeInput) => withDatabaseErrors(() => pool.transaction((trx) => write(trx, caller, input, null))),

    /** Replaces every field (PUT): what `input` leaves out is cleared. */
    replace: (caller: EnvironmentCaller, id: string, input: EmployeeInput, options?: WriteOptions) => replace(caller, id, () => input, options),

    /** Applies `apply` (a PATCH's operations) to the employee as an input, then writes the result. */
    patch: (caller: EnvironmentCaller, id: string, apply: (current: EmployeeInput) => EmployeeInput, options?: WriteOptions) =>
      replace(caller, id, (current) => apply(employeeInputOf(current)), options),

    /** Deletes the employee with its user (HR practice terminates instead; this is for records made by mistake). */
    remove: (caller: EnvironmentCaller, id: string, options: WriteOptions = {}) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id, 'update');
        await guardOperator(trx, caller, id);
        if (options.expectedVersion !== undefined && options.expectedVersion !== before.employee.version)
          throw versionMismatch('employee', before.employee.version);
        await createDirectoryUserQueries(trx, caller.scope.environmentId).deleteUser(id);
        await record(trx, caller, {
          action: 'directory.user.delete',
          resource: { type: 'user', id },
          before: before.user,
          after: null,
          event: { type: 'directory.user.deleted', data: { user: before.user } },
        });
        await record(trx, caller, {
          action: 'hris.employee.delete',
          resource: { type: 'employee', id },
          before: before.employee,
          after: null,
          event: { type: 'hris.employee.deleted', data: { employee: before.employee } },
        });
        return { success: true as const, id };
      }),
  };
}

export type EmployeeService = ReturnType<typeof createEmployeeService>;
