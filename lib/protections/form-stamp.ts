// The form stamp of the sign-in pages: the time a form was rendered, HMAC'd under a key derived from the master key
// (`<ms>.<mac>`), so bot detection can tell a form posted faster than a person fills it, and a forged or missing
// stamp, without storing anything. Bound to the environment; the CSRF token binds the post to its interaction.
import { createHmac, createSecretKey, hkdfSync, timingSafeEqual } from 'node:crypto';

export type StampReading = { kind: 'missing' } | { kind: 'invalid' } | { kind: 'valid'; ageMs: number };

export function createFormStamps(masterKey: Buffer) {
  const key = createSecretKey(Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'iam oidc sign-in form stamp v1', 32)));
  const macOf = (environmentId: string, ms: string) => createHmac('sha256', key).update(`${environmentId}\n${ms}`).digest('base64url');
  return {
    /** The stamp of a form rendered now. */
    of: (environmentId: string, now = Date.now()): string => `${now}.${macOf(environmentId, String(now))}`,

    /** What a posted stamp says: missing, forged (or of another environment), or how long ago its form was rendered. */
    read: (environmentId: string, value: string | undefined, now = Date.now()): StampReading => {
      if (!value) return { kind: 'missing' };
      const match = /^(\d{13})\.([A-Za-z0-9_-]{43})$/.exec(value);
      if (!match) return { kind: 'invalid' };
      const expected = Buffer.from(macOf(environmentId, match[1]!));
      if (!timingSafeEqual(expected, Buffer.from(match[2]!))) return { kind: 'invalid' };
      return { kind: 'valid', ageMs: now - Number(match[1]) };
    },
  };
}

export type FormStamps = ReturnType<typeof createFormStamps>;
