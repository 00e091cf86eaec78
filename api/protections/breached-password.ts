// The breached password policy (…/settings/breached-password-policy) as the password policy port applies it
// (api/passwords/environment-policy.ts), at every place a password is set: sign-up (`checkOnSignup`), a reset or
// password link, the account endpoint and the directory API (`checkOnChange`). The check is offline
// (lib/protections/breached.ts). `block` adds the rule `breached` to the refusal and records `protection.blocked`;
// `warn` lets the password through with a warning and records `protection.warned`. No threat: a user choosing a
// weak password is not an attack, and the password itself is never recorded.
import type { DatabasePool } from 'slonik';
import { createProtectionPolicyQueries } from '../../db/protections/queries.ts';
import { breachedMatch } from '../../lib/protections/breached.ts';
import { BreachedPasswordSettings, type ProtectionSettings } from '../../lib/protections/settings.ts';
import type { PasswordCheck, PasswordPurpose, PasswordRule, PasswordScope } from '../passwords/policy.ts';
import { recordDecision, type SignInFlow } from './decisions.ts';

type Settings = ProtectionSettings<'breached_password'>;

export const BREACHED_RULE: PasswordRule = {
  code: 'breached',
  message: 'is too common or too easy to guess (passwords like it appear in data breaches)',
};

const FLOWS: Record<PasswordPurpose, SignInFlow> = { sign_up: 'sign_up', reset: 'password_reset', change: 'password_change', admin_set: 'password_change' };

/** The environment's saved policy, or null (never saved: off). One indexed statement. */
export async function breachedPasswordSettingsOf(pool: DatabasePool, environmentId: string): Promise<Settings | null> {
  const row = await createProtectionPolicyQueries(pool, environmentId).find('breached_password');
  return row ? BreachedPasswordSettings.parse(row.settings) : null;
}

const appliesTo = (settings: Settings | null, purpose: PasswordPurpose): settings is Settings =>
  !!settings?.enabled && (purpose === 'sign_up' ? settings.checkOnSignup : settings.checkOnChange);

/** What an attacker guessing this user's password would try first: their user name, email and its local part. */
const userInputsOf = (context: PasswordCheck) =>
  [context.userName, context.email, context.email?.split('@')[0]].filter((v): v is string => typeof v === 'string' && v !== '');

/**
 * The policy's outcome for `password` (`refused`: the other rules already refuse it, so `warn` says nothing):
 * `blocked` (refuse with BREACHED_RULE), `warned` (let it through with a notice), or null. Records the decision.
 */
export async function breachedPasswordOutcome(
  pool: DatabasePool,
  scope: PasswordScope,
  password: string,
  context: PasswordCheck,
  settings: Settings | null,
  refused: boolean,
): Promise<'blocked' | 'warned' | null> {
  if (!appliesTo(settings, context.purpose)) return null;
  if (settings.mode === 'warn' && refused) return null;
  const match = await breachedMatch(password, userInputsOf(context));
  if (!match) return null;
  const outcome = settings.mode === 'block' ? 'blocked' : 'warned';
  await recordDecision(pool, {
    ...scope,
    policy: 'breached_password',
    flow: FLOWS[context.purpose],
    outcome,
    reason: match,
    userId: context.userId ?? null,
    login: context.userName ?? context.email ?? null,
    origin: context.origin ?? {},
    details: { purpose: context.purpose },
  });
  return outcome;
}
