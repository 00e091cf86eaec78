// An employee (EmployeeRecord: HR fields and directory user) as an HRIS Employee resource and back.
import { z } from 'zod';
import { EmploymentStatus, EmploymentType } from '../../../../db/provisioning/hris/rows.ts';
import { HRIS_URN } from '../../../../lib/scim/hris-schemas.ts';
import type { Resource } from '../../../../lib/scim/values.ts';
import type { EmployeeInput, EmployeeRecord } from './employee-mapping.ts';
import { meta, parseResource, present, Reference, referenceId, text } from './resource-values.ts';

const Item = z.looseObject({ value: z.string().max(2048).nullish(), type: text, primary: z.boolean().nullish() });
const Items = z.array(Item).max(50).nullish();
const date = z.iso.date().nullish();
const EmployeeBody = z.looseObject({
  externalId: z.string().max(256).nullish(),
  employeeNumber: z.string().max(200).nullish(),
  name: z.looseObject({ givenName: text, familyName: text, middleName: text, formatted: text }).nullish(),
  preferredName: text,
  displayName: text,
  emails: Items,
  phoneNumbers: Items,
  title: text,
  userType: text,
  employmentType: EmploymentType.nullish(),
  employmentStatus: EmploymentStatus.nullish(),
  startDate: date,
  terminationDate: date,
  department: Reference,
  manager: Reference,
  costCenter: text,
  division: text,
  organization: text,
  workLocation: z.looseObject({ value: text, display: text }).nullish(),
  customFields: z.record(z.string(), z.unknown()).nullish(),
});

/** Valued items, the primary one first (it is the one the directory takes as the user's work address). */
const items = (list: z.infer<typeof Items>) =>
  (list ?? [])
    .filter((i) => i.value)
    .sort((a, b) => Number(b.primary === true) - Number(a.primary === true))
    .map((i) => ({ value: i.value!, type: i.type ?? null }));

/** The service input of a canonical Employee: what it leaves out is cleared (PUT), as the HR system's record. */
export function employeeFromScim(resource: Resource): EmployeeInput {
  const body = parseResource(EmployeeBody, resource);
  return {
    externalId: body.externalId || null,
    employeeNumber: body.employeeNumber || null,
    name: body.name
      ? { givenName: body.name.givenName, familyName: body.name.familyName, middleName: body.name.middleName, formatted: body.name.formatted }
      : null,
    preferredName: body.preferredName ?? null,
    displayName: body.displayName ?? null,
    emails: items(body.emails),
    phoneNumbers: items(body.phoneNumbers),
    title: body.title ?? null,
    userType: body.userType ?? null,
    employmentType: body.employmentType ?? null,
    ...(body.employmentStatus && { employmentStatus: body.employmentStatus }),
    startDate: body.startDate ?? null,
    terminationDate: body.terminationDate ?? null,
    departmentId: referenceId(body.department, 'department.value', 'department'),
    managerId: referenceId(body.manager, 'manager.value', 'user'),
    costCenter: body.costCenter ?? null,
    division: body.division ?? null,
    organization: body.organization ?? null,
    workLocation: body.workLocation && Object.keys(present(body.workLocation)).length > 0 ? present(body.workLocation) : null,
    customFields: body.customFields ?? {},
  };
}

const flagged = (list: { value: string; type: string | null }[] | undefined) =>
  list && list.length > 0 ? list.map((item, i) => ({ ...present(item), primary: i === 0 })) : undefined;

/** An employee input as a resource: what a PATCH applies its operations to. */
export function inputToScim(input: EmployeeInput): Resource {
  return present({
    schemas: [HRIS_URN.employee],
    externalId: input.externalId,
    employeeNumber: input.employeeNumber,
    name: input.name ? present(input.name) : undefined,
    preferredName: input.preferredName,
    displayName: input.displayName,
    emails: flagged(input.emails?.map((e) => ({ value: e.value, type: e.type ?? null }))),
    phoneNumbers: flagged(input.phoneNumbers?.map((p) => ({ value: p.value, type: p.type ?? null }))),
    title: input.title,
    userType: input.userType,
    employmentType: input.employmentType,
    employmentStatus: input.employmentStatus,
    startDate: input.startDate,
    terminationDate: input.terminationDate,
    department: input.departmentId ? { value: input.departmentId } : undefined,
    manager: input.managerId ? { value: input.managerId } : undefined,
    costCenter: input.costCenter,
    division: input.division,
    organization: input.organization,
    workLocation: input.workLocation,
    customFields: input.customFields ?? {},
  });
}

export function employeeToScim({ employee, user }: EmployeeRecord, names: Map<string, string>, baseUrl: string): Resource {
  const name =
    user.names &&
    present({ givenName: user.names.givenName, familyName: user.names.familyName, middleName: user.names.middleName, formatted: user.names.formatted });
  return present({
    schemas: [HRIS_URN.employee],
    id: user.id,
    externalId: user.externalId === user.id ? null : user.externalId,
    employeeNumber: employee.employeeNumber,
    ...(name && Object.keys(name).length > 0 && { name }),
    preferredName: user.nickName,
    displayName: user.displayName,
    emails: flagged(user.emails.map((e) => ({ value: e.value, type: e.type }))),
    phoneNumbers: flagged(user.phoneNumbers.map((p) => ({ value: p.value, type: p.type }))),
    title: user.title,
    userType: user.userType,
    employmentType: employee.employmentType,
    employmentStatus: employee.employmentStatus,
    active: user.active,
    startDate: employee.startDate,
    terminationDate: employee.terminationDate,
    department: employee.departmentId && present({ value: employee.departmentId, display: names.get(employee.departmentId) }),
    manager: employee.managerId && present({ value: employee.managerId, displayName: names.get(employee.managerId) }),
    costCenter: employee.costCenter,
    division: employee.division,
    organization: employee.organization,
    workLocation: employee.workLocation,
    userId: user.id,
    customFields: employee.customFields,
    meta: meta('Employee', `${baseUrl}/Employees/${user.id}`, employee.createdAt, [employee.updatedAt, user.updatedAt], employee.version),
  });
}
