// The passkey (WebAuthn) ceremonies the sign-in pages call, with @simplewebauthn/server 14. The relying party is
// PUBLIC_BASE_URL: its hostname is the RP id and its origin the only origin a response may come from.
//
//   registration (signed-in user):  registrationOptions → navigator.credentials.create() → verifyRegistration
//   sign-in (identifier first):     authenticationOptions(env, userId) → navigator.credentials.get() → verifyAuthentication
//   sign-in (conditional UI):       authenticationOptions(env, null)  → get({ mediation: 'conditional' }) → verifyAuthentication
//
// Each options call stores a challenge (five minutes, single use) and returns its id; the page sends the id back with
// the browser's response (`PublicKeyCredential.toJSON()`). Every refusal answers a reason, records an audit entry and an
// event, and changes nothing else. Management (list, rename, remove) is the directory/passkeys family.
import type { DatabasePool } from 'slonik';
import { relyingPartyOf } from '../../lib/webauthn/relying-party.ts';
import { createAuthenticationCeremony } from './authentication.ts';
import { createRegistrationCeremony } from './registration.ts';

export type { PasskeyEnvironment } from './record.ts';
export type { RegistrationRefusal, RegistrationResult } from './registration.ts';
export type { AuthenticationRefusal, AuthenticationResult, VerifiedPasskey, VerifyAuthenticationOptions } from './authentication.ts';
export { CHALLENGE_TTL_SECONDS } from './challenges.ts';

export function createPasskeyCeremonies(pool: DatabasePool, publicBaseUrl: string) {
  const rp = relyingPartyOf(publicBaseUrl);
  return { relyingParty: rp, ...createRegistrationCeremony(pool, rp), ...createAuthenticationCeremony(pool, rp) };
}

export type PasskeyCeremonies = ReturnType<typeof createPasskeyCeremonies>;
