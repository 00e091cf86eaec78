// Uniqueness in a directory is enforced by Postgres alone (0011_directory.sql; across identifier kinds, 0026's
// triggers), so two concurrent writes of the same value give one success and one 409: each unique index or trigger
// constraint maps to its code and the field it guards.
import { UniqueIntegrityConstraintViolationError } from 'slonik';
import { ApiError } from '../../errors.ts';

const CONFLICTS: Record<string, { code: string; path: string; what: string }> = {
  users__environment_user_name: { code: 'directory.user_name_taken', path: 'body.userName', what: 'the userName of another user' },
  user_emails_pkey: { code: 'directory.email_taken', path: 'body.emails', what: 'an email of another user' },
  users__environment_external_id: { code: 'directory.external_id_taken', path: 'body.externalId', what: 'the externalId of another user' },
  groups__environment_name: { code: 'directory.group_name_taken', path: 'body.name', what: 'the name of another group' },
  groups__environment_external_id: { code: 'directory.group_external_id_taken', path: 'body.externalId', what: 'the externalId of another group' },
  // An AuthZEN subject id names one subject whatever its kind (lib/authz/subjects.ts, `any`).
  users__environment_identifier_external_id: { code: 'directory.identifier_taken', path: 'body.externalId', what: 'the userName or id of another user' },
  users__environment_identifier_user_name: { code: 'directory.identifier_taken', path: 'body.userName', what: 'the externalId or id of another user' },
  groups__environment_identifier_external_id: { code: 'directory.identifier_taken', path: 'body.externalId', what: 'the name or id of another group' },
  groups__environment_identifier_name: { code: 'directory.identifier_taken', path: 'body.name', what: 'the externalId or id of another group' },
};

// `Key (environment_id, lower(user_name))=(<uuid>, alice) already exists.`: the value after the environment id.
const VALUE = /=\([0-9a-f-]{36}, (.*)\) already exists\.?$/s;

/** Runs `work`, turning a directory unique violation into its 409 naming the value already taken. */
export async function unique<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const conflict = error instanceof UniqueIntegrityConstraintViolationError && error.constraint ? CONFLICTS[error.constraint] : undefined;
    if (!conflict) throw error;
    const value = VALUE.exec((error as UniqueIntegrityConstraintViolationError).detail ?? '')?.[1];
    const message = value === undefined ? `is already ${conflict.what} in this environment` : `${value} is already ${conflict.what} in this environment`;
    throw new ApiError(409, conflict.code, `Conflict: ${conflict.path} ${message}.`, { details: [{ path: conflict.path, message }] });
  }
}
