// The password policy port: every place that sets a password (sign-up, a reset or password link, the directory
// API, the signed-in user's change) asks the one policy the app was built with (`AppDeps.passwordPolicy`). The
// default is the service's fixed rules; the protections issue swaps in the environment's configured policy (minimum
// length, character classes, breached-password check) without touching a call site.
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../lib/passwords.ts';
import type { RequestOrigin } from '../../db/shared/changes.ts';

/**
 * Why a password is refused: a stable code. Every code has a localised message on the sign-in pages
 * (api/oidc/pages/password-refusal.ts), so a policy that adds one adds its catalog keys too (the compiler says so).
 */
export type PasswordRefusalCode =
  'too_short' | 'too_long' | 'whitespace_only' | 'missing_lowercase' | 'missing_uppercase' | 'missing_number' | 'missing_symbol' | 'breached';

/**
 * A refusal: its code, and a message in English that follows the field's name (`must be at least 8 characters long`:
 * the API's 400 says `body.password must be …`). A length refusal carries its bound for the pages' messages.
 */
export type PasswordRule =
  { code: 'too_short' | 'too_long'; message: string; limit: number } | { code: Exclude<PasswordRefusalCode, 'too_short' | 'too_long'>; message: string };

/**
 * A refusal is its first failing rule; `rules`, when there, lists every rule the password fails (the first one
 * included), so the API's 400 and the pages name them all. A policy that stops at one rule leaves it out.
 */
export type PasswordRefusal = PasswordRule & { rules?: readonly PasswordRule[] };

/** Every rule the refusal names, in order. */
export const failingRules = (refusal: PasswordRefusal): readonly PasswordRule[] => refusal.rules ?? [refusal];

/** Where a password is being set. */
export type PasswordPurpose = 'sign_up' | 'reset' | 'change' | 'admin_set';

/** What the policy may weigh besides the password: the purpose, and whose password it is when known. */
export interface PasswordCheck {
  purpose: PasswordPurpose;
  userId?: string;
  userName?: string;
  email?: string | null;
  /** The request that sets it (IP, user agent): a policy that records its decision names it. */
  origin?: RequestOrigin;
}

/** Why a password the policy lets through is worth a notice to the user (a breached password in `warn` mode). */
export type PasswordWarning = 'breached';
/** The header of an API answer that set a password with a warning (`Password-Warning: breached`). */
export const PASSWORD_WARNING_HEADER = 'password-warning';

/** The policy's answer: the refusal (nothing is set), or none, with a warning the user is shown when there is one. */
export type PasswordVerdict = { refusal: PasswordRefusal; warning?: undefined } | { refusal: null; warning?: PasswordWarning | undefined };

export interface PasswordScope {
  tenantId: string;
  environmentId: string;
}

export interface PasswordPolicy {
  /** The refusal of `password` in this environment (`refusal: null` when it may be set), with its warning if any. */
  check(scope: PasswordScope, password: string, context: PasswordCheck): Promise<PasswordVerdict>;
}

/** The service's rules until an environment configures its own: 8 to 256 Unicode code points, not only whitespace. */
export const defaultPasswordPolicy: PasswordPolicy = {
  check: async (_scope, password) => ({ refusal: defaultRefusal(password) }),
};

function defaultRefusal(password: string): PasswordRefusal | null {
  const length = [...password].length; // code points, not UTF-16 units
  if (length < PASSWORD_MIN_LENGTH)
    return { code: 'too_short', message: `must be at least ${PASSWORD_MIN_LENGTH} characters long`, limit: PASSWORD_MIN_LENGTH };
  if (length > PASSWORD_MAX_LENGTH) return { code: 'too_long', message: `must be at most ${PASSWORD_MAX_LENGTH} characters long`, limit: PASSWORD_MAX_LENGTH };
  if (password.trim() === '') return { code: 'whitespace_only', message: 'must not be only whitespace' };
  return null;
}
