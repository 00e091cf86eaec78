// The errors of the HRIS service functions: an unknown reference is an invalid value (the HRIS surface answers
// SCIM's `invalidValue`), a stale version a 412 (ETag/If-Match), and unique violations 409s naming the field.
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { ApiError } from '../../../errors.ts';
import { unique } from '../../directory/conflicts.ts';

export interface WriteOptions {
  /** The version the writer read (If-Match): a write over any other one is refused. */
  expectedVersion?: number;
}

export const invalidValue = (path: string, message: string) =>
  new ApiError(400, 'hris.invalid_value', `Invalid value: ${path} ${message}.`, { details: [{ path, message }] });

export const versionMismatch = (resource: 'employee' | 'department', version: number) =>
  new ApiError(412, `hris.${resource}_version_mismatch`, `The ${resource} has changed: its version is now ${version}.`);

/** Runs `work`, turning the HR records' and the directory's unique violations into 409s. */
export async function hrisUnique<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await unique(work);
  } catch (error) {
    if (error instanceof UniqueIntegrityConstraintViolationError && error.constraint === 'hris_employees__environment_employee_number') {
      const message = 'is already the employeeNumber of another employee in this environment';
      throw new ApiError(409, 'hris.employee_number_taken', `Conflict: employeeNumber ${message}.`, { details: [{ path: 'employeeNumber', message }] });
    }
    throw error;
  }
}
