// Checks of elevate policies and requests: the auto-approval condition, the ticket pattern (a regular expression
// kept away from catastrophic backtracking), and who the caller is in the environment's directory.
import { compileAutoApproval } from '../../../../lib/authz/auto-approval.ts';
import type { ElevateActor } from '../../../../db/access/elevate/changes.ts';
import type { EnvironmentCaller } from '../../../access/caller.ts';
import { invalidField } from '../../../errors.ts';

/** 400 `elevate.invalid_condition` naming `body.autoApprove` with the line and column, unless the condition compiles. */
export function checkAutoApproval(source: string | null) {
  if (source === null) return;
  const compiled = compileAutoApproval(source);
  if (!compiled.ok) {
    const { line, column, message } = compiled.error;
    throw invalidField('body.autoApprove', `${line}:${column}: ${message}`, 'elevate.invalid_condition');
  }
}

// Nested quantifiers (`(a+)+`, `(a|b*)*`) and backreferences are what make a backtracking engine exponential.
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*?}](?:[^()\\]|\\.)*\)\s*[+*{]/;
const BACKREFERENCE = /\\[1-9]|\\k</;

/** The compiled ticket pattern, or 400 naming `path`: it must compile and hold no nested quantifier or backreference. */
export function ticketRegExp(pattern: string, path = 'body.ticketPattern'): RegExp {
  if (NESTED_QUANTIFIER.test(pattern)) throw invalidField(path, 'must not nest quantifiers (catastrophic backtracking)');
  if (BACKREFERENCE.test(pattern)) throw invalidField(path, 'must not use backreferences');
  try {
    return new RegExp(pattern, 'u');
  } catch (error) {
    throw invalidField(path, `is not a valid regular expression (${(error as Error).message})`);
  }
}

/** The directory user of this environment the caller is (a user's token), or null (a service account, an operator). */
export const directoryUserOf = (caller: EnvironmentCaller): string | null =>
  caller.principal.type === 'user' && caller.principal.environmentId === caller.scope.environmentId ? caller.principal.id : null;

/**
 * The directory user a caller acts as: itself when it is one (naming another is refused), else the one it names
 * on its behalf (`field`, required then).
 */
export function actingUser(caller: EnvironmentCaller, named: string | undefined, field: string): string {
  const self = directoryUserOf(caller);
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
