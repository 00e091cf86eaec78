// The API's 400 for a password the policy refused: one detail per failing rule, all on the field.
import { ApiError } from '../errors.ts';
import { failingRules, type PasswordRefusal } from './policy.ts';

const sentence = (parts: readonly string[]) => (parts.length <= 1 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`);

/** 400 `code` (default `password.<first rule>`) naming `path` (`body.password`) once per rule the password fails. */
export function passwordRefused(path: string, refusal: PasswordRefusal, code = `password.${refusal.code}`): ApiError {
  const rules = failingRules(refusal);
  return new ApiError(400, code, `Invalid request: ${path} ${sentence(rules.map((r) => r.message))}.`, {
    details: rules.map((r) => ({ path, message: r.message })),
  });
}
