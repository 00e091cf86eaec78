// HRIS Employees at /v1/hris/v1/Employees: the SCIM machinery's descriptor over the HRIS employee service (its
// lifecycle rules, events and audit), with the provisioning token as the caller.
import type { DatabasePool } from 'slonik';
import { referenceNames } from '../../../../db/provisioning/hris/references.ts';
import { employeeColumn } from '../../../../db/provisioning/hris/scim-columns.ts';
import { EMPLOYEE_SCHEMA } from '../../../../lib/scim/hris-schemas.ts';
import { COMMON_ATTRIBUTES } from '../../../../lib/scim/resource-schemas.ts';
import { isUuid, notFound, type ResourceDescriptor, type ScimContext } from '../scim/descriptor.ts';
import { expectedVersion, hrisCaller } from './caller.ts';
import type { EmployeeRecord } from './employee-mapping.ts';
import { employeeFromScim, employeeToScim, inputToScim } from './employee-resource.ts';
import { createEmployeeService } from './employees-service.ts';

export function employeeDescriptor(pool: DatabasePool): ResourceDescriptor {
  const service = createEmployeeService(pool);
  const resources = async (ctx: ScimContext, records: EmployeeRecord[]) => {
    const names = await referenceNames(
      pool,
      ctx.environmentId,
      records.flatMap((r) => [r.employee.departmentId, r.employee.managerId]),
    );
    return records.map((r) => employeeToScim(r, names, ctx.baseUrl));
  };
  const checked = (id: string) => {
    if (!isUuid(id)) throw notFound('Employee', id);
    return id;
  };

  return {
    name: 'Employee',
    endpoint: '/Employees',
    description: 'An employee of the HR system, provisioned as a directory user',
    schemas: { core: EMPLOYEE_SCHEMA, extensions: [], common: COMMON_ATTRIBUTES },
    column: () => employeeColumn,

    list: async (ctx, query) => {
      const caller = await hrisCaller(pool, ctx);
      const { employees, total } = await service.list(caller, { limit: query.limit, offset: query.offset }, query.where ? [query.where] : []);
      return { total, resources: await resources(ctx, employees) };
    },

    get: async (ctx, id) => (await resources(ctx, [await service.get(await hrisCaller(pool, ctx), checked(id))]))[0]!,

    create: async (ctx, input) => (await resources(ctx, [await service.create(await hrisCaller(pool, ctx), employeeFromScim(input))]))[0]!,

    update: async (ctx, id, change, ifMatch) => {
      const caller = await hrisCaller(pool, ctx);
      const record = await service.patch(caller, checked(id), (current) => employeeFromScim(change(inputToScim(current))), {
        expectedVersion: expectedVersion(ifMatch),
      });
      return (await resources(ctx, [record]))[0]!;
    },

    remove: async (ctx, id, ifMatch) => {
      await service.remove(await hrisCaller(pool, ctx), checked(id), { expectedVersion: expectedVersion(ifMatch) });
    },
  };
}
