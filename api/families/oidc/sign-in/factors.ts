// What the factors page offers an identifier: the extension point of the factor work (TOTP, passkeys, SSO). Each
// kind here has a form in api/oidc/pages/factors.ts and a step route that verifies it.
//
// No enumeration: an unknown identifier must be offered what a plausible known one is (today: the password), on the
// same page with the same status; offers that depend on the user (a passkey, an SSO domain) must not tell an
// unknown identifier from a known one beyond what the environment's public configuration already says.
import type { SignInUser } from '../../../../db/oidc/sign-in/queries.ts';
import type { FactorOffer } from '../../../oidc/pages/factors.ts';
import type { HomeRealm } from './home-realm.ts';

export type { FactorOffer };

/** What the environment turns on (its sign-in settings as the Provider was built with them). */
export interface FactorSettings {
  emailCodeEnabled?: boolean | undefined;
  /** The password policy's `passwordAuthEnabled` (default true): off, the password is not offered. */
  passwordEnabled?: boolean | undefined;
}

/**
 * The factor offers for `user` (null: unknown identifier), first offer first. `realm`: the SSO connection the
 * identifier's email domain is bound to (home-realm.ts; public configuration, the same for unknown identifiers):
 * when it is required, it is the only offer. A passkey is offered to everyone: the ceremony is discoverable, so an
 * unknown identifier is only told no after it. The email code is offered to every identifier alike too: whether a
 * code is really sent is the email code service's business.
 */
export function factorOffers(user: SignInUser | null, settings: FactorSettings = {}, realm: HomeRealm | null = null): FactorOffer[] {
  void user;
  const sso: FactorOffer[] = realm ? [{ kind: 'sso', ...realm }] : [];
  if (realm?.required) return sso;
  const password: FactorOffer[] = settings.passwordEnabled === false ? [] : [{ kind: 'password' }];
  return [...password, { kind: 'passkey' }, ...(settings.emailCodeEnabled ? [{ kind: 'email_code' } as const] : []), ...sso];
}
