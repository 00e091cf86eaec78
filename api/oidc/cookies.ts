// The signer of an environment's provider cookies: its key is derived from the master key (HKDF-SHA256) per
// environment, so no two environments (and no two deployments) share it and none is a constant. It signs exactly as
// oidc-provider's default Keygrip over the same key string (HMAC-SHA1, base64url), so cookies signed before stay
// valid, but with the key held as a KeyObject and the signatures compared with timingSafeEqual: on Node 24 an HMAC
// under a Buffer key costs ~9 times one under a KeyObject, and Keygrip's compare makes two under random Buffers
// for every signed cookie read (a few % of a sign-in page's CPU).
import { createHmac, createSecretKey, hkdfSync, timingSafeEqual, type KeyObject } from 'node:crypto';

export const cookieKeys = (masterKey: Buffer, environmentId: string): string[] => [
  Buffer.from(hkdfSync('sha256', masterKey, environmentId, 'oidc-provider cookie keys v1', 32)).toString('base64url'),
];

const signWith = (key: KeyObject, data: unknown) => createHmac('sha1', key).update(String(data)).digest('base64url');

/** What oidc-provider's `cookies.keys` accepts besides an array: Keygrip's interface. */
export interface CookieSigner {
  sign(data: unknown): string;
  verify(data: unknown, digest: string): boolean;
  index(data: unknown, digest: string): number;
}

/** A Keygrip over `keys`, the first one signing. */
export function cookieSigner(keys: string[]): CookieSigner {
  const objects = keys.map((key) => createSecretKey(Buffer.from(key, 'utf8')));
  const index = (data: unknown, digest: string) => {
    const given = Buffer.from(String(digest));
    return objects.findIndex((key) => {
      const expected = Buffer.from(signWith(key, data));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
  };
  return { sign: (data) => signWith(objects[0]!, data), verify: (data, digest) => index(data, digest) > -1, index };
}
