// Recovery codes (shown once, SHA-256 of the normalised code stored) and the signed "remember this device" value.
import { describe, expect, it } from 'vitest';
import { hashRecoveryCode, newRecoveryCodes, normaliseRecoveryCode, RECOVERY_CODE_COUNT } from '../../lib/mfa/recovery-codes.ts';
import { rememberDeviceKey, readRememberDevice, signRememberDevice } from '../../lib/mfa/remember-device.ts';

describe('recovery codes', () => {
  it('makes 10 distinct codes of four base32 groups (80 bits each)', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(RECOVERY_CODE_COUNT).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}$/);
    expect(new Set(codes).size).toBe(10);
  });

  it('hashes the normalised code: case, spaces and dashes do not matter, and a different code differs', () => {
    const [code] = newRecoveryCodes();
    const typed = ` ${code!.toLowerCase().replace(/-/g, ' ')} `;
    expect(normaliseRecoveryCode(typed)).toBe(code!.replace(/-/g, ''));
    expect(hashRecoveryCode(typed).equals(hashRecoveryCode(code!))).toBe(true);
    expect(hashRecoveryCode(typed)).toHaveLength(32);
    expect(hashRecoveryCode(newRecoveryCodes()[0]!).equals(hashRecoveryCode(code!))).toBe(false);
  });
});

describe('remember this device', () => {
  const key = rememberDeviceKey(Buffer.alloc(32, 7));
  const env = '0b6a3c1e-1111-4a2b-8c3d-000000000001';
  const user = '0b6a3c1e-2222-4a2b-8c3d-000000000002';
  const now = 1_800_000_000_000;

  it('reads back the environment, the user, the factor and the times it was signed with', () => {
    const device = { environmentId: env, userId: user, factorId: '0b6a3c1e-3333-4a2b-8c3d-000000000003', issuedAtMs: now, expiresAtMs: now + 3600_000 };
    const token = signRememberDevice(key, device);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(readRememberDevice(key, token)).toEqual(device);
    expect(readRememberDevice(key, signRememberDevice(key, { ...device, factorId: null }))).toEqual({ ...device, factorId: null });
  });

  it('derives its key from the master key with HKDF (another master key refuses the value)', () => {
    const token = signRememberDevice(key, { environmentId: env, userId: user, factorId: null, issuedAtMs: now, expiresAtMs: now + 3600_000 });
    expect(rememberDeviceKey(Buffer.alloc(32, 7)).equals(key)).toBe(true);
    expect(key.equals(Buffer.alloc(32, 7))).toBe(false);
    expect(readRememberDevice(rememberDeviceKey(Buffer.alloc(32, 8)), token)).toBeNull();
  });

  it('refuses a tampered value, a forged payload and garbage', () => {
    const token = signRememberDevice(key, { environmentId: env, userId: user, factorId: null, issuedAtMs: now, expiresAtMs: now + 3600_000 });
    const [payload, mac] = token.split('.') as [string, string];
    const other = Buffer.from(payload, 'base64url').toString().replace(user, env);
    expect(readRememberDevice(key, `${Buffer.from(other).toString('base64url')}.${mac}`)).toBeNull();
    expect(readRememberDevice(key, `${payload}.${mac.slice(0, -2)}AA`)).toBeNull();
    for (const bad of ['', '.', 'abc', `${payload}.`, `.${mac}`, `${payload}.${mac}.x`]) expect(readRememberDevice(key, bad)).toBeNull();
  });
});
