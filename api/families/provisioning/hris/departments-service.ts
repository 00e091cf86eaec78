// Departments of an environment's HR system: each one a directory group (name = displayName) with HR fields
// (hris_departments), written only through here so the two stay one record. The hierarchy has no cycles (400), and a
// department that still has employees or child departments cannot be deleted (409).
import type { DatabasePool, DatabaseTransactionConnection, FragmentSqlToken } from 'slonik';
import { createGroupQueries } from '../../../../db/directory/groups/queries.ts';
import type { Group, GroupFields } from '../../../../db/directory/groups/rows.ts';
import { createDirectoryUserQueries } from '../../../../db/directory/users/queries.ts';
import { createDepartmentQueries } from '../../../../db/provisioning/hris/departments.ts';
import { createEmployeeQueries } from '../../../../db/provisioning/hris/employees.ts';
import type { Department, DepartmentFields, DepartmentType } from '../../../../db/provisioning/hris/rows.ts';
import type { PageRequest } from '../../../../db/shared/pages.ts';
import { ApiError, orNotFound, withDatabaseErrors } from '../../../errors.ts';
import { record, type EnvironmentCaller } from '../../../access/caller.ts';
import { invalidValue, versionMismatch, type WriteOptions } from './checks.ts';

type Trx = DatabaseTransactionConnection;

export interface DepartmentInput {
  displayName: string;
  externalId?: string | null;
  description?: string | null;
  code?: string | null;
  type?: DepartmentType;
  parentId?: string | null;
  managerId?: string | null;
  costCenter?: string | null;
  active?: boolean;
}

export interface DepartmentRecord {
  department: Department;
  group: Group;
}

const departmentFields = (input: DepartmentInput): DepartmentFields => ({
  code: input.code ?? null,
  type: input.type ?? 'DEPARTMENT',
  parentId: input.parentId ?? null,
  managerId: input.managerId ?? null,
  costCenter: input.costCenter ?? null,
  active: input.active ?? true,
});

/** The group of a department: its HR fields are copied into the attributes that access conditions read. */
function groupFields(input: DepartmentInput, fields: DepartmentFields, before: Group | null): GroupFields {
  const hr = { code: fields.code, type: fields.type, costCenter: fields.costCenter, parentId: fields.parentId, managerId: fields.managerId };
  const kept = Object.fromEntries(Object.entries(before?.attributes ?? {}).filter(([k]) => !(k in hr)));
  return {
    name: input.displayName,
    externalId: input.externalId ?? null,
    description: input.description ?? null,
    attributes: { ...kept, ...Object.fromEntries(Object.entries(hr).filter(([, v]) => v !== null)), active: fields.active },
  };
}

/** The input that would write `record` as it is: what a PATCH applies its operations to. */
const departmentInputOf = ({ department, group }: DepartmentRecord): DepartmentInput => ({
  displayName: group.name,
  externalId: group.externalId === group.id ? null : group.externalId,
  description: group.description,
  code: department.code,
  type: department.type,
  parentId: department.parentId,
  managerId: department.managerId,
  costCenter: department.costCenter,
  active: department.active,
});

export function createDepartmentService(pool: DatabasePool) {
  const find = async (db: Trx | DatabasePool, caller: EnvironmentCaller, id: string, lock: 'update' | null = null): Promise<DepartmentRecord> => {
    const department = await orNotFound(createDepartmentQueries(db, caller.scope.environmentId).findDepartment(id, lock), 'department', id);
    const group = await createGroupQueries(db, caller.scope.environmentId).findGroup(id, lock);
    return { department, group: group! };
  };

  const checkReferences = async (trx: Trx, caller: EnvironmentCaller, input: DepartmentInput, id: string | null) => {
    const { environmentId } = caller.scope;
    if (input.parentId) {
      const parent = await createDepartmentQueries(trx, environmentId).findDepartment(input.parentId, 'key share');
      if (!parent) throw invalidValue('parentId', `names no department of this environment (${input.parentId})`);
      if (id && (await createDepartmentQueries(trx, environmentId).ancestorsOf(input.parentId)).includes(id)) {
        throw new ApiError(400, 'hris.department_cycle', `Invalid value: parentId ${input.parentId} is the department itself or one below it.`, {
          details: [{ path: 'parentId', message: 'would make the department its own ancestor' }],
        });
      }
    }
    if (input.managerId && !(await createDirectoryUserQueries(trx, environmentId).findUser(input.managerId, 'key share'))) {
      throw invalidValue('managerId', `names no user of this environment (${input.managerId})`);
    }
  };

  const write = async (trx: Trx, caller: EnvironmentCaller, input: DepartmentInput, before: DepartmentRecord | null): Promise<DepartmentRecord> => {
    await checkReferences(trx, caller, input, before?.group.id ?? null);
    const fields = departmentFields(input);
    const { environmentId } = caller.scope;
    const groups = createGroupQueries(trx, environmentId);
    const departments = createDepartmentQueries(trx, environmentId);
    const group = before
      ? await groups.updateGroup(before.group.id, groupFields(input, fields, before.group))
      : await groups.insertGroup(groupFields(input, fields, null));
    const department = before ? await departments.updateDepartment(group.id, fields) : await departments.insertDepartment(group.id, fields);
    const verb = before ? 'update' : 'create';
    await record(trx, caller, {
      action: `directory.group.${verb}`,
      resource: { type: 'group', id: group.id },
      before: before?.group ?? null,
      after: group,
      event: before ? { type: 'directory.group.updated', data: { group } } : { type: 'directory.group.created', data: { group } },
    });
    await record(trx, caller, {
      action: `hris.department.${verb}`,
      resource: { type: 'department', id: group.id },
      before: before?.department ?? null,
      after: department,
      event: before ? { type: 'hris.department.updated', data: { department } } : { type: 'hris.department.created', data: { department } },
    });
    return { department, group };
  };

  const replace = (caller: EnvironmentCaller, id: string, change: (current: DepartmentRecord) => DepartmentInput, options: WriteOptions = {}) =>
    withDatabaseErrors(() =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id, 'update');
        if (options.expectedVersion !== undefined && options.expectedVersion !== before.department.version)
          throw versionMismatch('department', before.department.version);
        return write(trx, caller, change(before), before);
      }),
    );

  return {
    get: (caller: EnvironmentCaller, id: string) => find(pool, caller, id),

    /** A page of the environment's departments matching `where` (fragments over `g` groups and `d` hris_departments). */
    list: async (caller: EnvironmentCaller, page: PageRequest, where: FragmentSqlToken[] = []) => {
      const { items, total } = await createDepartmentQueries(pool, caller.scope.environmentId).findDepartments(where, page);
      const groups = createGroupQueries(pool, caller.scope.environmentId);
      const records = await Promise.all(items.map(async (department) => ({ department, group: (await groups.findGroup(department.groupId))! })));
      return { departments: records, total };
    },

    create: (caller: EnvironmentCaller, input: DepartmentInput) => withDatabaseErrors(() => pool.transaction((trx) => write(trx, caller, input, null))),

    replace: (caller: EnvironmentCaller, id: string, input: DepartmentInput, options?: WriteOptions) => replace(caller, id, () => input, options),

    patch: (caller: EnvironmentCaller, id: string, apply: (current: DepartmentInput) => DepartmentInput, options?: WriteOptions) =>
      replace(caller, id, (current) => apply(departmentInputOf(current)), options),

    remove: (caller: EnvironmentCaller, id: string, options: WriteOptions = {}) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, id, 'update');
        if (options.expectedVersion !== undefined && options.expectedVersion !== before.department.version)
          throw versionMismatch('department', before.department.version);
        const { environmentId } = caller.scope;
        const employees = await createEmployeeQueries(trx, environmentId).countInDepartment(id);
        const children = await createDepartmentQueries(trx, environmentId).countChildren(id);
        if (employees > 0 || children > 0) {
          throw new ApiError(409, 'hris.department_not_empty', `Department ${id} still has ${employees} employees and ${children} child departments.`);
        }
        await createGroupQueries(trx, environmentId).deleteGroup(id);
        await record(trx, caller, {
          action: 'directory.group.delete',
          resource: { type: 'group', id },
          before: before.group,
          after: null,
          event: { type: 'directory.group.deleted', data: { group: before.group } },
        });
        await record(trx, caller, {
          action: 'hris.department.delete',
          resource: { type: 'department', id },
          before: before.department,
          after: null,
          event: { type: 'hris.department.deleted', data: { department: before.department } },
        });
        return { success: true as const, id };
      }),
  };
}

export type DepartmentService = ReturnType<typeof createDepartmentService>;
