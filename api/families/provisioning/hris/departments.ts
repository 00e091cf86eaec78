// HRIS Departments at /v1/hris/v1/Departments: the SCIM machinery's descriptor over the HRIS department service
// (hierarchy without cycles, no delete while employees or children remain), with the provisioning token as caller.
import type { DatabasePool } from 'slonik';
import { referenceNames } from '../../../../db/provisioning/hris/references.ts';
import { departmentColumn } from '../../../../db/provisioning/hris/scim-columns.ts';
import { ScimError } from '../../../../lib/scim/errors.ts';
import { DEPARTMENT_SCHEMA } from '../../../../lib/scim/hris-schemas.ts';
import { COMMON_ATTRIBUTES } from '../../../../lib/scim/resource-schemas.ts';
import { ApiError } from '../../../errors.ts';
import { isUuid, notFound, type ResourceDescriptor, type ScimContext } from '../scim/descriptor.ts';
import { expectedVersion, hrisCaller } from './caller.ts';
import { departmentFromScim, departmentToScim, inputToScim } from './department-resource.ts';
import { createDepartmentService, type DepartmentRecord } from './departments-service.ts';

export function departmentDescriptor(pool: DatabasePool): ResourceDescriptor {
  const service = createDepartmentService(pool);
  const resources = async (ctx: ScimContext, records: DepartmentRecord[]) => {
    const names = await referenceNames(
      pool,
      ctx.environmentId,
      records.flatMap((r) => [r.department.parentId, r.department.managerId]),
    );
    return records.map((r) => departmentToScim(r, names, ctx.baseUrl));
  };
  const checked = (id: string) => {
    if (!isUuid(id)) throw notFound('Department', id);
    return id;
  };

  return {
    name: 'Department',
    endpoint: '/Departments',
    description: 'A department of the HR system, provisioned as a directory group',
    schemas: { core: DEPARTMENT_SCHEMA, extensions: [], common: COMMON_ATTRIBUTES },
    column: () => departmentColumn,

    list: async (ctx, query) => {
      const caller = await hrisCaller(pool, ctx);
      const { departments, total } = await service.list(caller, { limit: query.limit, offset: query.offset }, query.where ? [query.where] : []);
      return { total, resources: await resources(ctx, departments) };
    },

    get: async (ctx, id) => (await resources(ctx, [await service.get(await hrisCaller(pool, ctx), checked(id))]))[0]!,

    create: async (ctx, input) => (await resources(ctx, [await service.create(await hrisCaller(pool, ctx), departmentFromScim(input))]))[0]!,

    update: async (ctx, id, change, ifMatch) => {
      const caller = await hrisCaller(pool, ctx);
      const record = await service.patch(caller, checked(id), (current) => departmentFromScim(change(inputToScim(current)), current.description ?? null), {
        expectedVersion: expectedVersion(ifMatch),
      });
      return (await resources(ctx, [record]))[0]!;
    },

    remove: async (ctx, id, ifMatch) => {
      try {
        await service.remove(await hrisCaller(pool, ctx), checked(id), { expectedVersion: expectedVersion(ifMatch) });
      } catch (error) {
        // Not a uniqueness conflict: the department is still in use.
        if (error instanceof ApiError && error.code === 'hris.department_not_empty') throw new ScimError(409, error.message);
        throw error;
      }
    },
  };
}
