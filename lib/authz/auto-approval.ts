// The auto-approval condition of an elevate policy: CEL over `requester` (the directory user: id, userName, email,
// attributes, groups by name) and `request` (durationSeconds, justification, ticketId), type-checked when the
// policy is saved (like RBAC conditions, ./conditions.ts) and evaluated when a request is made.
import { Environment } from '@marcbachmann/cel-js';
import { errorOf, MAX_CONDITION_LENGTH, type ConditionError } from './conditions.ts';

export interface AutoApprovalInput {
  requester: { id: string; userName: string; email: string | null; attributes: Record<string, unknown>; groups: string[] };
  request: { durationSeconds: number; justification: string | null; ticketId: string | null };
}

const env = new Environment({ limits: { maxAstNodes: 1000, maxDepth: 50, maxListElements: 1000, maxMapEntries: 1000, maxCallArguments: 32 } })
  .registerVariable('requester', 'map')
  .registerVariable('request', 'map');

/** Compiles an auto-approval condition, or says what is wrong with it and where. */
export function compileAutoApproval(source: string): { ok: true; holds: (input: AutoApprovalInput) => boolean } | { ok: false; error: ConditionError } {
  if (source.trim() === '') return { ok: false, error: { message: 'A condition must not be empty.', line: 1, column: 1 } };
  if (source.length > MAX_CONDITION_LENGTH) {
    return { ok: false, error: { message: `A condition must be at most ${MAX_CONDITION_LENGTH} characters.`, line: 1, column: 1 } };
  }
  let checked;
  try {
    checked = env.check(source);
  } catch (error) {
    return { ok: false, error: errorOf(source, error) };
  }
  if (!checked.valid) return { ok: false, error: errorOf(source, checked.error) };
  if (checked.type !== 'bool' && checked.type !== 'dyn') {
    return { ok: false, error: { message: `A condition must evaluate to a bool, not ${checked.type}.`, line: 1, column: 1 } };
  }
  const program = env.parse(source);
  return {
    ok: true,
    // An error (a missing key) means the condition does not hold: the request waits for approvers.
    holds: (input) => {
      try {
        return program(input as unknown as Record<string, unknown>) === true;
      } catch {
        return false;
      }
    },
  };
}
