// The errors of the HRIS service functions: an unknown reference is an invalid value (the HRIS surface answers
// SCIM's `invalidValue`) and a stale version a 412 (ETag/If-Match); unique violations are translated by
// db/shared/database-errors.ts.
import { ApiError } from '../../../errors.ts';

export interface WriteOptions {
  /** The version the writer read (If-Match): a write over any other one is refused. */
  expectedVersion?: number;
}

export const invalidValue = (path: string, message: string) =>
  new ApiError(400, 'hris.invalid_value', `Invalid value: ${path} ${message}.`, { details: [{ path, message }] });

export const versionMismatch = (resource: 'employee' | 'department', version: number) =>
  new ApiError(412, `hris.${resource}_version_mismatch`, `The ${resource} has changed: its version is now ${version}.`);
