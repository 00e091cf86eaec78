// A department (DepartmentRecord: HR fields and directory group) as an HRIS Department resource and back.
import { z } from 'zod';
import { DepartmentType } from '../../../../db/provisioning/hris/rows.ts';
import { invalidValue } from '../../../../lib/scim/errors.ts';
import { HRIS_URN } from '../../../../lib/scim/hris-schemas.ts';
import type { Resource } from '../../../../lib/scim/values.ts';
import type { DepartmentInput, DepartmentRecord } from './departments-service.ts';
import { meta, parseResource, present, Reference, referenceId, text } from './resource-values.ts';

const DepartmentBody = z.looseObject({
  externalId: z.string().max(256).nullish(),
  code: z.string().max(200).nullish(),
  displayName: z.string().max(200).nullish(),
  type: DepartmentType.nullish(),
  parent: Reference,
  manager: Reference,
  costCenter: text,
  active: z.boolean().nullish(),
});

/** The service input of a canonical Department; `description` (not an HRIS attribute) is the current one. */
export function departmentFromScim(resource: Resource, description: string | null = null): DepartmentInput {
  const body = parseResource(DepartmentBody, resource);
  if (!body.displayName?.trim()) throw invalidValue('displayName is required.');
  return {
    displayName: body.displayName,
    externalId: body.externalId || null,
    description,
    code: body.code || null,
    type: body.type ?? 'DEPARTMENT',
    parentId: referenceId(body.parent, 'parent.value', 'department'),
    managerId: referenceId(body.manager, 'manager.value', 'user'),
    costCenter: body.costCenter ?? null,
    active: body.active ?? true,
  };
}

/** A department input as a resource: what a PATCH applies its operations to. */
export const inputToScim = (input: DepartmentInput): Resource =>
  present({
    schemas: [HRIS_URN.department],
    externalId: input.externalId,
    code: input.code,
    displayName: input.displayName,
    type: input.type,
    parent: input.parentId ? { value: input.parentId } : undefined,
    manager: input.managerId ? { value: input.managerId } : undefined,
    costCenter: input.costCenter,
    active: input.active,
  });

export function departmentToScim({ department, group }: DepartmentRecord, names: Map<string, string>, baseUrl: string): Resource {
  return present({
    schemas: [HRIS_URN.department],
    id: group.id,
    externalId: group.externalId === group.id ? null : group.externalId,
    code: department.code,
    displayName: group.name,
    type: department.type,
    parent: department.parentId && present({ value: department.parentId, display: names.get(department.parentId) }),
    manager: department.managerId && present({ value: department.managerId, displayName: names.get(department.managerId) }),
    costCenter: department.costCenter,
    active: department.active,
    meta: meta('Department', `${baseUrl}/Departments/${group.id}`, department.createdAt, [department.updatedAt, group.updatedAt], department.version),
  });
}
