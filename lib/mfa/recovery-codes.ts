// Recovery codes: 10 per user, each 80 random bits in base32 (16 characters, shown as four groups of four). Only the
// SHA-256 of the normalised code is stored: with 80 bits of entropy a guess costs 2^79 hashes on average, so a fast
// hash is right (a slow one would only slow the sign-in down).
import { createHash } from 'node:crypto';
import { Secret } from 'otpauth';

export const RECOVERY_CODE_COUNT = 10;

/** `XXXX-XXXX-XXXX-XXXX`, base32 (A–Z, 2–7), 10 random bytes. */
const newCode = () => (new Secret({ size: 10 }).base32.match(/.{4}/g) ?? []).join('-');

/** A new set of codes, distinct, to show once. */
export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  const codes = new Set<string>();
  while (codes.size < count) codes.add(newCode());
  return [...codes];
}

/** What a person typed, as stored: upper case, without spaces or dashes. */
export const normaliseRecoveryCode = (typed: string): string => typed.toUpperCase().replace(/[\s-]+/g, '');

/** The stored form: SHA-256 of the normalised code. */
export const hashRecoveryCode = (typed: string): Buffer => createHash('sha256').update(normaliseRecoveryCode(typed)).digest();
