// The sign-in forms' CSRF token: an HMAC of the environment and the interaction uid under a key derived from the
// master key. It needs no storage, is bound to one interaction (a token of another interaction or environment does
// not pass), and a cross-site page cannot learn it, since it only appears in the pages this origin serves.
import { createHmac, createSecretKey, hkdfSync, timingSafeEqual } from 'node:crypto';
import { createFormStamps } from '../../../../lib/protections/form-stamp.ts';

export function createCsrf(masterKey: Buffer) {
  // A KeyObject: on Node 24 an HMAC under a Buffer key costs ~9 times one under a KeyObject.
  const key = createSecretKey(Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'iam oidc sign-in csrf v1', 32)));
  const tokenOf = (environmentId: string, uid: string) => createHmac('sha256', key).update(`${environmentId}\n${uid}`).digest('base64url');
  const stamps = createFormStamps(masterKey);
  return {
    tokenOf,
    /** The signed render time of a protected form (lib/protections/form-stamp.ts: bot detection reads it). */
    stampOf: (environmentId: string) => stamps.of(environmentId),
    /** Whether `given` is the token of this interaction (compared in constant time). */
    check: (environmentId: string, uid: string, given: unknown) => {
      if (typeof given !== 'string') return false;
      const expected = Buffer.from(tokenOf(environmentId, uid));
      const actual = Buffer.from(given);
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    },
  };
}

export type Csrf = ReturnType<typeof createCsrf>;
