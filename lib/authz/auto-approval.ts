// The auto-approval condition of an elevate policy: CEL over `requester` (the directory user: id, userName, email,
// attributes, groups by name) and `request` (durationSeconds, justification, ticketId), type-checked when the
// policy is saved (like RBAC conditions, ./conditions.ts) and evaluated when a request is made.
import { Environment } from '@marcbachmann/cel-js';
import { CEL_LIMITS, evaluateMetered, parseBooleanCondition, type ConditionError } from './conditions.ts';
import { withRe2Matches } from './cel-patterns.ts';

export interface AutoApprovalInput {
  requester: { id: string; userName: string; email: string | null; attributes: Record<string, unknown>; groups: string[] };
  request: { durationSeconds: number; justification: string | null; ticketId: string | null };
}

const env = withRe2Matches(new Environment({ limits: CEL_LIMITS }).registerVariable('requester', 'map').registerVariable('request', 'map'));

/** Compiles an auto-approval condition, or says what is wrong with it and where. */
export function compileAutoApproval(source: string): { ok: true; holds: (input: AutoApprovalInput) => boolean } | { ok: false; error: ConditionError } {
  const parsed = parseBooleanCondition(env, source);
  if (!parsed.ok) return parsed;
  const { program } = parsed;
  return {
    ok: true,
    // An error (a missing key, a spent cost budget) means the condition does not hold: the request waits for approvers.
    holds: (input) => evaluateMetered(program, input) === true,
  };
}
