// The shapes of the WebAuthn responses a sign-in page posts back (the browser's PublicKeyCredential as JSON, what
// `credential.toJSON()` and @simplewebauthn/browser give). Anything else is refused as `verification_failed` before the
// library sees it.
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { z } from 'zod';

const base64url = (max: number) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .max(max);
/** Credential ids are at most 1023 bytes (WebAuthn Level 3). */
const credentialId = base64url(1366);
const TRANSPORTS = ['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'] as const;

const common = {
  id: credentialId,
  rawId: credentialId,
  type: z.literal('public-key'),
  clientExtensionResults: z.looseObject({}).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
};

const RegistrationResponse = z.looseObject({
  ...common,
  response: z.looseObject({
    clientDataJSON: base64url(16_384),
    attestationObject: base64url(65_536),
    transports: z.array(z.string().max(32)).max(16).optional(),
  }),
});

const AuthenticationResponse = z.looseObject({
  ...common,
  response: z.looseObject({
    clientDataJSON: base64url(16_384),
    authenticatorData: base64url(16_384),
    signature: base64url(2_048),
    userHandle: base64url(128).optional(),
  }),
});

/** The response as the library takes it, or null when it is not a registration response. */
export const registrationResponseOf = (value: unknown) => {
  const parsed = RegistrationResponse.safeParse(value);
  return parsed.success ? (parsed.data as unknown as RegistrationResponseJSON) : null;
};

/** The response as the library takes it, or null when it is not an authentication response. */
export const authenticationResponseOf = (value: unknown) => {
  const parsed = AuthenticationResponse.safeParse(value);
  return parsed.success ? (parsed.data as unknown as AuthenticationResponseJSON) : null;
};

/** The transports a browser reported that WebAuthn defines (others are dropped). */
export const knownTransports = (transports: readonly string[] | undefined) =>
  [...new Set((transports ?? []).filter((t): t is (typeof TRANSPORTS)[number] => (TRANSPORTS as readonly string[]).includes(t)))].sort();
