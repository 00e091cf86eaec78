// TOTP (RFC 6238) on otpauth: the RFC's SHA-1 vectors, the ±1 step window, the otpauth:// URI and the QR code.
import { describe, expect, it } from 'vitest';
import { newTotpSecret, totpCode, totpQrSvg, totpStep, totpUri, verifyTotpCode } from '../../lib/mfa/totp.ts';

// RFC 6238 appendix B: the SHA-1 seed is the ASCII string 12345678901234567890 (base32 below), 8 digits, 30 s steps.
const RFC_SEED = Buffer.from('12345678901234567890').toString('hex');
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const RFC_VECTORS: [number, string][] = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
];

describe('TOTP', () => {
  it('generates the RFC 6238 SHA-1 test vectors (8 digits)', () => {
    expect(RFC_SEED).toBe('3132333435363738393031323334353637383930');
    for (const [seconds, code] of RFC_VECTORS) expect(totpCode(RFC_SECRET, seconds * 1000, 8)).toBe(code);
  });

  it('verifies each RFC vector at its time, answering the matched time step', () => {
    for (const [seconds, code] of RFC_VECTORS) {
      expect(verifyTotpCode(RFC_SECRET, code, { timestampMs: seconds * 1000, digits: 8 })).toBe(Math.floor(seconds / 30));
    }
  });

  it('accepts a code one step early or late (the step it was made for) and refuses one two steps away', () => {
    const secret = newTotpSecret();
    const now = 1_700_000_015_000;
    const step = totpStep(now);
    const previous = totpCode(secret, now - 30_000);
    const next = totpCode(secret, now + 30_000);
    expect(verifyTotpCode(secret, totpCode(secret, now), { timestampMs: now })).toBe(step);
    expect(verifyTotpCode(secret, previous, { timestampMs: now })).toBe(step - 1);
    expect(verifyTotpCode(secret, next, { timestampMs: now })).toBe(step + 1);
    expect(verifyTotpCode(secret, totpCode(secret, now - 60_000), { timestampMs: now })).toBeNull();
    expect(verifyTotpCode(secret, totpCode(secret, now + 60_000), { timestampMs: now })).toBeNull();
  });

  it('refuses malformed codes, and reads a code typed with spaces', () => {
    const secret = newTotpSecret();
    const now = Date.now();
    const code = totpCode(secret, now);
    expect(verifyTotpCode(secret, `${code.slice(0, 3)} ${code.slice(3)}`, { timestampMs: now })).toBe(totpStep(now));
    for (const bad of ['', '12345', '1234567', 'abcdef', `${code}0`]) expect(verifyTotpCode(secret, bad, { timestampMs: now })).toBeNull();
  });

  it('makes a 160-bit base32 secret, a fresh one each time', () => {
    const a = newTotpSecret();
    expect(a).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(a);
  });

  it('builds the otpauth:// URI with issuer and label, and its QR code as SVG', async () => {
    const uri = totpUri({ secret: RFC_SECRET, issuer: 'Acme Corp', label: 'ada@example.com' });
    const url = new URL(uri);
    expect(url.protocol).toBe('otpauth:');
    expect(url.host).toBe('totp');
    expect(decodeURIComponent(url.pathname)).toBe('/Acme Corp:ada@example.com');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      issuer: 'Acme Corp',
      secret: RFC_SECRET,
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
    const svg = await totpQrSvg(uri);
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]*viewBox="0 0 \d+ \d+"/);
    expect(svg).not.toMatch(/<script|href=/);
  });
});
