// What an HR system writes about an employee (the service-level input the HRIS surface maps its resources to), and
// how it becomes a directory user: one-way, externalId the join key, the HR fields copied into the user's
// attributes so access conditions can read them (`subject.properties.department == "Platform"`).
import type { DirectoryUser, UserFields } from '../../../../db/directory/users/rows.ts';
import type { Employee, EmploymentStatus, EmploymentType, EmployeeFields } from '../../../../db/provisioning/hris/rows.ts';
import type { Employment } from '../../../../db/provisioning/hris/lifecycle.ts';
import { invalidField } from '../../../errors.ts';

export interface EmployeeInput {
  externalId?: string | null;
  /** Defaults to the work email (else the first), else the employee number. */
  userName?: string;
  employeeNumber?: string | null;
  name?: { givenName?: string | null; familyName?: string | null; middleName?: string | null; formatted?: string | null } | null;
  displayName?: string | null;
  /** The name the employee goes by: the directory user's nickName. */
  preferredName?: string | null;
  emails?: { value: string; type?: string | null }[];
  phoneNumbers?: { value: string; type?: string | null }[];
  title?: string | null;
  userType?: string | null;
  employmentType?: EmploymentType | null;
  /** What the HR system says; the stored status is the effective one (a future termination waits for its date). */
  employmentStatus?: EmploymentStatus;
  startDate?: string | null;
  terminationDate?: string | null;
  departmentId?: string | null;
  managerId?: string | null;
  costCenter?: string | null;
  division?: string | null;
  organization?: string | null;
  workLocation?: Record<string, unknown> | null;
  customFields?: Record<string, unknown>;
}

/** An employee with its directory user: what every service function answers. */
export interface EmployeeRecord {
  employee: Employee;
  user: DirectoryUser;
}

/** The HR keys an employee's user carries in its attributes (others a client set there are kept). */
const HR_ATTRIBUTES = [
  'employeeNumber',
  'employmentType',
  'employmentStatus',
  'startDate',
  'terminationDate',
  'department',
  'departmentId',
  'manager',
  'costCenter',
  'division',
  'organization',
] as const;

export function employeeFields(input: EmployeeInput, employment: Employment): EmployeeFields {
  return {
    employeeNumber: input.employeeNumber ?? null,
    employmentType: input.employmentType ?? null,
    employmentStatus: employment.status,
    startDate: input.startDate ?? null,
    terminationDate: employment.terminationDate,
    departmentId: input.departmentId ?? null,
    managerId: input.managerId ?? null,
    costCenter: input.costCenter ?? null,
    division: input.division ?? null,
    organization: input.organization ?? null,
    workLocation: input.workLocation ?? null,
    customFields: input.customFields ?? {},
  };
}

function userNameOf(input: EmployeeInput): string {
  const email = input.emails?.find((e) => e.type === 'work') ?? input.emails?.[0];
  const userName = input.userName ?? email?.value ?? input.employeeNumber ?? undefined;
  if (!userName) throw invalidField('userName', 'is required when the employee has no email and no employeeNumber', 'hris.invalid_value');
  return userName;
}

/** A sub-item keeps its id while its value stays (a rewrite of the same employee changes nothing in it). */
const idOf = (items: { id: string; value: string }[] | undefined, value: string) => items?.find((i) => i.value === value)?.id ?? crypto.randomUUID();

/** The directory user of an employee: `before` (its current one) keeps the attributes the HR fields do not own. */
export function userFields(
  input: EmployeeInput,
  fields: EmployeeFields,
  active: boolean,
  departmentName: string | null,
  before: DirectoryUser | null,
): UserFields {
  const kept = Object.fromEntries(Object.entries(before?.attributes ?? {}).filter(([k]) => !(HR_ATTRIBUTES as readonly string[]).includes(k)));
  const hr: Record<string, unknown> = {
    employeeNumber: fields.employeeNumber,
    employmentType: fields.employmentType,
    employmentStatus: fields.employmentStatus,
    startDate: fields.startDate,
    terminationDate: fields.terminationDate,
    department: departmentName,
    departmentId: fields.departmentId,
    manager: fields.managerId,
    costCenter: fields.costCenter,
    division: fields.division,
    organization: fields.organization,
  };
  const name = input.name ?? null;
  return {
    userName: userNameOf(input),
    externalId: input.externalId ?? null,
    displayName: input.displayName ?? name?.formatted ?? null,
    nickName: input.preferredName ?? null,
    title: input.title ?? null,
    userType: input.userType ?? null,
    active,
    names: name && {
      id: before?.names?.id ?? crypto.randomUUID(),
      formatted: name.formatted ?? null,
      familyName: name.familyName ?? null,
      givenName: name.givenName ?? null,
      middleName: name.middleName ?? null,
      honorificPrefix: null,
      honorificSuffix: null,
    },
    emails: (input.emails ?? []).map((e) => ({ id: idOf(before?.emails, e.value), value: e.value, type: e.type ?? null })),
    phoneNumbers: (input.phoneNumbers ?? []).map((p) => ({ id: idOf(before?.phoneNumbers, p.value), value: p.value, type: p.type ?? null })),
    attributes: { ...kept, ...Object.fromEntries(Object.entries(hr).filter(([, v]) => v !== null)) },
  };
}

/** The input that would write `record` as it is: what a PATCH applies its operations to. */
export function employeeInputOf({ employee, user }: EmployeeRecord): EmployeeInput {
  const name = user.names;
  return {
    employeeNumber: employee.employeeNumber,
    employmentType: employee.employmentType,
    employmentStatus: employee.employmentStatus,
    startDate: employee.startDate,
    terminationDate: employee.terminationDate,
    departmentId: employee.departmentId,
    managerId: employee.managerId,
    costCenter: employee.costCenter,
    division: employee.division,
    organization: employee.organization,
    workLocation: employee.workLocation,
    customFields: employee.customFields,
    externalId: user.externalId === user.id ? null : user.externalId,
    userName: user.userName,
    name: name && { givenName: name.givenName, familyName: name.familyName, middleName: name.middleName, formatted: name.formatted },
    displayName: user.displayName,
    preferredName: user.nickName ?? null,
    emails: user.emails.map((e) => ({ value: e.value, type: e.type })),
    phoneNumbers: user.phoneNumbers.map((p) => ({ value: p.value, type: p.type })),
    title: user.title,
    userType: user.userType,
  };
}
