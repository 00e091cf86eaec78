// Whether the environment lets people use a password at all (password policy `passwordAuthEnabled`, default true).
// Off: the sign-in pages neither offer nor accept one, and no password can be set (the directory API, password
// links answer 409 `password.disabled`, the account endpoint 403).
import type { CommonQueryMethods } from 'slonik';
import { passwordPolicySettingsOf } from '../../db/password-policy/queries.ts';
import { ApiError } from '../errors.ts';

export const passwordAuthEnabled = async (db: CommonQueryMethods, environmentId: string) =>
  (await passwordPolicySettingsOf(db, environmentId)).passwordAuthEnabled;

/** 409 for the management API (a conflict with the environment's settings); 403 for the user's own account endpoint. */
export const passwordDisabled = (status: 403 | 409 = 409) =>
  new ApiError(
    status,
    'password.disabled',
    'Password sign-in is turned off in this environment (…/settings/password-policy passwordAuthEnabled): no password can be set.',
  );

/** Throws 409 `password.disabled` when the environment has password sign-in off. */
export async function requirePasswordAuth(db: CommonQueryMethods, environmentId: string) {
  if (!(await passwordAuthEnabled(db, environmentId))) throw passwordDisabled();
}
