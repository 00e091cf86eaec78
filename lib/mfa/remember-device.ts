// "Remember this device": a value the sign-in pages keep in a cookie, `<payload>.<mac>` in base64url, where the
// payload binds the environment, the user, the user's TOTP factor when it was issued (so removing or replacing the
// authenticator forgets the devices it let through) and the times it was issued and expires, and the mac is HMAC-SHA256 under
// a key derived from the master key (HKDF-SHA256, info `mfa-remember-device`), so no row is stored per device.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export interface RememberedDevice {
  environmentId: string;
  userId: string;
  /** The user's confirmed TOTP factor when the value was issued, or null. */
  factorId: string | null;
  issuedAtMs: number;
  expiresAtMs: number;
}

/** The signing key of remembered devices, derived once from the master key. */
export const rememberDeviceKey = (masterKey: Buffer): Buffer => Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'mfa-remember-device', 32));

const mac = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest();

export function signRememberDevice(key: Buffer, device: RememberedDevice): string {
  const payload = Buffer.from(
    JSON.stringify({ e: device.environmentId, u: device.userId, f: device.factorId, i: device.issuedAtMs, x: device.expiresAtMs }),
  ).toString('base64url');
  return `${payload}.${mac(key, payload).toString('base64url')}`;
}

/** What a value says if its mac is right (whatever its times: the caller checks them), else null. */
export function readRememberDevice(key: Buffer, value: string): RememberedDevice | null {
  const parts = value.split('.');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return null;
  const [payload, given] = parts as [string, string];
  const expected = mac(key, payload);
  const actual = Buffer.from(given, 'base64url');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return null;
  try {
    const p = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    if (typeof p.e !== 'string' || typeof p.u !== 'string' || typeof p.i !== 'number' || typeof p.x !== 'number') return null;
    if (p.f !== null && typeof p.f !== 'string') return null;
    return { environmentId: p.e, userId: p.u, factorId: p.f, issuedAtMs: p.i, expiresAtMs: p.x };
  } catch {
    return null;
  }
}
