// What the factors page offers an identifier: the extension point of the factor work (TOTP, passkeys, SSO). Each
// kind here has a form in api/oidc/pages/factors.ts and a step route that verifies it.
//
// No enumeration: an unknown identifier must be offered what a plausible known one is (today: the password), on the
// same page with the same status; offers that depend on the user (a passkey, an SSO domain) must not tell an
// unknown identifier from a known one beyond what the environment's public configuration already says.
import type { SignInUser } from '../../../../db/oidc/sign-in/queries.ts';
import type { FactorOffer } from '../../../oidc/pages/factors.ts';

export type { FactorOffer };

/** The factor offers for `user` (null: unknown identifier), first offer first. */
export function factorOffers(user: SignInUser | null): FactorOffer[] {
  void user;
  // A passkey is offered to everyone: the ceremony is discoverable, so an unknown identifier is only told no after it.
  return [{ kind: 'password' }, { kind: 'passkey' }];
}
