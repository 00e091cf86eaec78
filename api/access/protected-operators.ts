// Operators of the service (users holding management scopes) are protected principals: a write that reaches one
// (update, activate, deactivate, delete, a group membership) needs a caller that may manage operators
// (api/access/principals.ts: a user or service account holding every scope the operator holds). Provisioning tokens
// neither see nor change them: to SCIM and HRIS they do not exist (404), whoever asks.
import type { CommonQueryMethods } from 'slonik';
import { createProtectedUserQueries } from '../../db/directory/users/protected.ts';
import { ApiError } from '../errors.ts';
import type { EnvironmentCaller } from './caller.ts';
import { mayManageOperator } from './principals.ts';

export const USER_PROTECTED = 'directory.user_protected';

const protectedUser = (userId: string) =>
  new ApiError(
    403,
    USER_PROTECTED,
    `User ${userId} is an operator of the service (it holds management scopes) and is protected: only a user or service account ` +
      'holding every scope it holds (`*` if it holds `*`) may change it; organization keys and provisioning tokens never may.',
  );

/** Whether the user is an operator of the environment (SCIM and HRIS answer 404 for one). */
export const isOperator = async (db: CommonQueryMethods, environmentId: string, userId: string) =>
  (await createProtectedUserQueries(db).operatorScopes(environmentId, userId)) !== null;

/** The environment's operators, which SCIM and HRIS leave out of what they show and keep out of what they write. */
export const operatorIdsOf = (db: CommonQueryMethods, environmentId: string) => createProtectedUserQueries(db).operatorIds(environmentId);

/** Whether the user is an operator hidden from this caller: a provisioning token (SCIM, HRIS) never sees one. */
export const hiddenOperator = async (db: CommonQueryMethods, caller: Pick<EnvironmentCaller, 'actor' | 'scope'>, userId: string) =>
  caller.actor.type === 'provisioning_token' && (await isOperator(db, caller.scope.environmentId, userId));

/** Refuses (403 `directory.user_protected`) a write to an operator by a caller that may not manage it. */
export async function guardOperator(db: CommonQueryMethods, caller: EnvironmentCaller, userId: string) {
  const scopes = await createProtectedUserQueries(db).operatorScopes(caller.scope.environmentId, userId);
  if (scopes === null) return;
  if (caller.actor.type === 'provisioning_token' || !mayManageOperator(caller.principal, scopes, caller.scope.tenant.id)) throw protectedUser(userId);
}
