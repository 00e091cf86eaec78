// Checks of elevate policies and requests: the auto-approval condition, the ticket pattern (RE2, linear time), and
// who the caller is in the environment's directory.
import type { RE2JS } from 're2js';
import { compileAutoApproval } from '../../../../lib/authz/auto-approval.ts';
import { compilePattern } from '../../../../lib/patterns/re2.ts';
import type { ElevateActor } from '../../../../db/access/elevate/changes.ts';
import type { CommonQueryMethods } from 'slonik';
import { createOperatorUserQueries } from '../../../../db/identity/users/operators.ts';
import type { EnvironmentCaller } from '../../../access/caller.ts';
import { ApiError, invalidField } from '../../../errors.ts';

/** 400 `elevate.invalid_condition` naming `body.autoApprove` with the line and column, unless the condition compiles. */
export function checkAutoApproval(source: string | null) {
  if (source === null) return;
  const compiled = compileAutoApproval(source);
  if (!compiled.ok) {
    const { line, column, message } = compiled.error;
    throw invalidField('body.autoApprove', `${line}:${column}: ${message}`, 'elevate.invalid_condition');
  }
}

/**
 * The compiled ticket pattern, or 400 naming `path`. RE2 (../../../../lib/patterns/re2.ts): linear time, so nested
 * quantifiers are harmless; backreferences and lookaround are refused. It matches anywhere unless anchored.
 */
export function ticketRegExp(pattern: string, path = 'body.ticketPattern'): RE2JS {
  const compiled = compilePattern(pattern);
  if (!compiled.ok) throw invalidField(path, compiled.message);
  return compiled.re;
}

/**
 * The directory user of this environment the caller is (a user's token), or null for an operator: a service
 * account, an organization key or a user of the operators' environment. A user of any other environment is no
 * operator here: 403 `elevate.not_an_operator`.
 */
export async function directoryUserOf(db: CommonQueryMethods, caller: EnvironmentCaller): Promise<string | null> {
  const { principal } = caller;
  if (principal.type !== 'user') return null;
  if (principal.environmentId === caller.scope.environmentId) return principal.id;
  const operators = await createOperatorUserQueries(db).findOperatorEnvironment();
  if (operators !== null && principal.environmentId === operators.environmentId) return null;
  throw new ApiError(
    403,
    'elevate.not_an_operator',
    "A user of another environment acts in this environment's elevate only as an operator (a user of the operators' environment).",
  );
}

/**
 * The directory user a caller acts as: itself when it is one (naming another is refused), else the one it names
 * on its behalf (`field`, required then).
 */
export async function actingUser(db: CommonQueryMethods, caller: EnvironmentCaller, named: string | undefined, field: string): Promise<string> {
  const self = await directoryUserOf(db, caller);
  if (self !== null) {
    if (named !== undefined && named !== self) throw invalidField(field, 'must be the calling user (a user acts only for itself)');
    return self;
  }
  if (named === undefined) throw invalidField(field, 'is required: the caller is not a user of this environment');
  return named;
}

export const actorOf = (caller: EnvironmentCaller): ElevateActor => ({
  actor: caller.actor,
  origin: caller.origin,
  organizationId: caller.scope.organizationId,
});
