// The HR records of an environment's directory: an employee is a directory user, a department a directory group,
// with these fields beside them (0016_directory_sync_and_hris.sql).
import { z } from 'zod';
import { isoTimestamp, uuid } from '../../shared/rows.ts';

export const EMPLOYMENT_STATUSES = ['PREHIRE', 'ACTIVE', 'LEAVE', 'TERMINATED'] as const;
export const EmploymentStatus = z.enum(EMPLOYMENT_STATUSES);
export type EmploymentStatus = z.infer<typeof EmploymentStatus>;
export const EmploymentType = z.enum(['FULL_TIME', 'PART_TIME', 'CONTRACTOR', 'INTERN', 'TEMPORARY', 'OTHER']);
export type EmploymentType = z.infer<typeof EmploymentType>;
export const DepartmentType = z.enum(['DEPARTMENT', 'TEAM', 'DIVISION', 'COST_CENTER', 'BUSINESS_UNIT']);
export type DepartmentType = z.infer<typeof DepartmentType>;

/** A calendar date, YYYY-MM-DD. */
const date = z.iso.date();

export const Employee = z
  .object({
    userId: uuid,
    environmentId: uuid,
    employeeNumber: z.string().nullable(),
    employmentType: EmploymentType.nullable(),
    employmentStatus: EmploymentStatus,
    startDate: date.nullable(),
    terminationDate: date.nullable(),
    departmentId: uuid.nullable(),
    managerId: uuid.nullable(),
    costCenter: z.string().nullable(),
    division: z.string().nullable(),
    organization: z.string().nullable(),
    workLocation: z.record(z.string(), z.unknown()).nullable(),
    customFields: z.record(z.string(), z.unknown()),
    version: z.number().int(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'HrisEmployee' });
export type Employee = z.infer<typeof Employee>;

/** The HR fields an employee's writer sets (the status is the effective one: lifecycle.ts). */
export type EmployeeFields = Omit<Employee, 'userId' | 'environmentId' | 'version' | 'createdAt' | 'updatedAt'>;

export const Department = z
  .object({
    groupId: uuid,
    environmentId: uuid,
    code: z.string().nullable(),
    type: DepartmentType,
    parentId: uuid.nullable(),
    managerId: uuid.nullable(),
    costCenter: z.string().nullable(),
    active: z.boolean(),
    version: z.number().int(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'HrisDepartment' });
export type Department = z.infer<typeof Department>;

export type DepartmentFields = Pick<Department, 'code' | 'type' | 'parentId' | 'managerId' | 'costCenter' | 'active'>;
