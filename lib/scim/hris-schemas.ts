// The HRIS resource schemas (/v1/hris/v1): Employee and Department in the project's own namespace (IANA reserves
// urn:ietf), SCIM-shaped so the SCIM machinery serves them. Only attributes that are stored and returned are listed.
import { attribute, complex, multi, str, type SchemaDef } from './schema.ts';

export const HRIS_URN = {
  employee: 'urn:iam-service:params:scim:schemas:hris:1.0:Employee',
  department: 'urn:iam-service:params:scim:schemas:hris:1.0:Department',
} as const;

const readOnly = { mutability: 'readOnly' } as const;
const date = (name: string, description: string) => str(name, `${description} A calendar date, YYYY-MM-DD.`);
const ref = (name: string, description: string, display: string) =>
  complex(name, `${description} Set by its id (\`value\`, or the id as a bare string); removed by an empty value.`, [
    str('value', 'The id.'),
    str(display, 'Its display name.', readOnly),
  ]);

export const EMPLOYEE_SCHEMA: SchemaDef = {
  id: HRIS_URN.employee,
  name: 'Employee',
  description: 'An employee of the HR system: a directory user with HR fields.',
  attributes: [
    str('employeeNumber', 'The HR number of the employee, unique in the environment.', { uniqueness: 'server' }),
    complex('name', 'The components of the name.', [
      str('givenName', 'The given name.'),
      str('familyName', 'The family name.'),
      str('middleName', 'The middle name(s).'),
      str('formatted', 'The full name, formatted for display.'),
    ]),
    str('preferredName', 'The name the employee goes by.'),
    str('displayName', 'The name, suitable for display.'),
    multi('emails', 'Email addresses; the work one (else the first) is the directory userName.', ['work', 'personal', 'home', 'other']),
    multi('phoneNumbers', 'Phone numbers.', ['work', 'mobile', 'home', 'other']),
    str('title', 'The job title.'),
    str('userType', 'The relationship to the organization (Employee, Contractor…).'),
    str('employmentType', 'The kind of employment.', {
      canonicalValues: ['FULL_TIME', 'PART_TIME', 'CONTRACTOR', 'INTERN', 'TEMPORARY', 'OTHER'],
      caseExact: true,
    }),
    str('employmentStatus', 'The effective status: a future startDate makes a PREHIRE, a future terminationDate waits for its day.', {
      canonicalValues: ['PREHIRE', 'ACTIVE', 'LEAVE', 'TERMINATED'],
      caseExact: true,
    }),
    attribute('active', 'boolean', 'Derived: the status is ACTIVE or LEAVE (the directory user is active).', readOnly),
    date('startDate', 'The first day of employment; in the future, the employee is a PREHIRE until then.'),
    date('terminationDate', 'The last day: on it the employee is TERMINATED and deprovisioned.'),
    ref('department', 'The department (a Department id).', 'display'),
    ref('manager', 'The manager (an Employee or directory user id).', 'displayName'),
    str('costCenter', 'The cost center.'),
    str('division', 'The division.'),
    str('organization', 'The organization or legal entity.'),
    complex('workLocation', 'Where the employee works.', [str('value', 'The id of the location in the HR system.'), str('display', 'Its name.')]),
    str('userId', 'The id of the directory user (the same as the SCIM User id and this id).', { ...readOnly, caseExact: true }),
    attribute('customFields', 'complex', 'HR fields of the source system, stored and returned as sent.', { subAttributes: [] }),
  ],
};

export const DEPARTMENT_SCHEMA: SchemaDef = {
  id: HRIS_URN.department,
  name: 'Department',
  description: 'A department of the HR system: a directory group with HR fields.',
  attributes: [
    str('code', 'The short code of the department.'),
    str('displayName', 'The name, unique in the environment case-insensitively.', { required: true, uniqueness: 'server' }),
    str('type', 'The kind of unit.', { canonicalValues: ['DEPARTMENT', 'TEAM', 'DIVISION', 'COST_CENTER', 'BUSINESS_UNIT'], caseExact: true }),
    ref('parent', 'The parent department (a Department id); a cycle is refused.', 'display'),
    ref('manager', 'The manager (an Employee or directory user id).', 'displayName'),
    str('costCenter', 'The cost center.'),
    attribute('active', 'boolean', 'Whether the department is in use.'),
  ],
};
