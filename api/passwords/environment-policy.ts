// The environment's configured password policy (…/settings/password-policy, password_policies): the port's
// implementation the app is built with. The service's default rules stay the floor (8 to 256 code points, not only
// whitespace); an environment raises the minimum and requires character classes, told apart by Unicode category.
// Every failing rule is named, so a user fixes their password in one go. The breached password policy adds its rule
// (`breached`, last) or a warning (api/protections/breached-password.ts).
import type { DatabasePool } from 'slonik';
import { passwordPolicySettingsOf, type PasswordPolicySettings } from '../../db/password-policy/queries.ts';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../lib/passwords.ts';
import { BREACHED_RULE, breachedPasswordOutcome, breachedPasswordSettingsOf } from '../protections/breached-password.ts';
import type { PasswordPolicy, PasswordRule, PasswordVerdict } from './policy.ts';

const CLASSES = [
  { key: 'requireLowercase', pattern: /\p{Ll}/u, rule: { code: 'missing_lowercase', message: 'must contain a lowercase letter' } },
  { key: 'requireUppercase', pattern: /\p{Lu}/u, rule: { code: 'missing_uppercase', message: 'must contain an uppercase letter' } },
  { key: 'requireNumber', pattern: /\p{Nd}/u, rule: { code: 'missing_number', message: 'must contain a number' } },
  // A symbol: neither a letter, a number (any kind), nor whitespace or a separator.
  { key: 'requireSymbol', pattern: /[^\p{L}\p{N}\p{White_Space}\p{Z}]/u, rule: { code: 'missing_symbol', message: 'must contain a symbol' } },
] as const satisfies readonly { key: keyof PasswordPolicySettings; pattern: RegExp; rule: PasswordRule }[];

/** Every rule of `settings` (over the default floor) that `password` fails, in a fixed order. */
export function rulesFailed(settings: PasswordPolicySettings, password: string): PasswordRule[] {
  const length = [...password].length; // code points, not UTF-16 units
  const min = Math.min(Math.max(settings.minLength, PASSWORD_MIN_LENGTH), PASSWORD_MAX_LENGTH);
  const failed: PasswordRule[] = [];
  if (length < min) failed.push({ code: 'too_short', message: `must be at least ${min} characters long`, limit: min });
  if (length > PASSWORD_MAX_LENGTH)
    failed.push({ code: 'too_long', message: `must be at most ${PASSWORD_MAX_LENGTH} characters long`, limit: PASSWORD_MAX_LENGTH });
  if (password.trim() === '') failed.push({ code: 'whitespace_only', message: 'must not be only whitespace' });
  for (const c of CLASSES) if (settings[c.key] && !c.pattern.test(password)) failed.push(c.rule);
  return failed;
}

/** The policy of each environment, read from its rows (the default without one): two statements per check. */
export function createEnvironmentPasswordPolicy(pool: DatabasePool): PasswordPolicy {
  return {
    check: async (scope, password, context): Promise<PasswordVerdict> => {
      const [settings, breached] = await Promise.all([
        passwordPolicySettingsOf(pool, scope.environmentId),
        breachedPasswordSettingsOf(pool, scope.environmentId),
      ]);
      const failed = rulesFailed(settings, password);
      const outcome = await breachedPasswordOutcome(pool, scope, password, context, breached, failed.length > 0);
      if (outcome === 'blocked') failed.push(BREACHED_RULE);
      if (failed.length > 0) return { refusal: { ...failed[0]!, rules: failed } };
      return { refusal: null, warning: outcome === 'warned' ? 'breached' : undefined };
    },
  };
}
