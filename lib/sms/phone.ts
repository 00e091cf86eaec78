// Phone numbers as SMS vendors take them: E.164 (`+` and up to 15 digits) that libphonenumber-js knows as valid.
import { createRequire } from 'node:module';
import type * as PhoneNumbers from 'libphonenumber-js';
import { z } from 'zod';

// libphonenumber-js (its metadata is about 2 MB of heap) is loaded by the first number or country checked, so an
// instance whose environments use no phone numbers never loads it. The zod refinements that check numbers are
// synchronous, hence require() rather than import().
let loaded: typeof PhoneNumbers | undefined;
export const phoneNumbers = () => (loaded ??= createRequire(import.meta.url)('libphonenumber-js') as typeof PhoneNumbers);

const E164 = /^\+[1-9]\d{1,14}$/;

/** The number's ISO 3166 alpha-2 country when `value` is a valid E.164 number, otherwise null. */
export function e164Country(value: string): { valid: boolean; country: string | null } {
  if (!E164.test(value)) return { valid: false, country: null };
  const parsed = phoneNumbers().parsePhoneNumberFromString(value);
  if (!parsed?.isValid()) return { valid: false, country: null };
  return { valid: true, country: parsed.country ?? null };
}

export const E164_MESSAGE = 'must be a valid phone number in E.164 form, e.g. +14155552671';

export const e164 = z.string().refine((v) => e164Country(v).valid, E164_MESSAGE);

/** An alphanumeric sender id as carriers take it: 1–11 letters, digits or spaces, not only digits. */
export const alphanumericSender = z.string().regex(/^(?=.*[A-Za-z])[A-Za-z0-9 ]{1,11}$/, 'must be 1–11 letters, digits or spaces, with a letter');

/** SMS pumping protection: the countries a provider may send to (ISO 3166 alpha-2, upper case). */
export const allowedCountries = z
  .array(z.string().refine((c) => /^[A-Z]{2}$/.test(c) && phoneNumbers().isSupportedCountry(c as never), 'must be an ISO 3166 alpha-2 country code, e.g. US'))
  .min(1)
  .refine((list) => new Set(list).size === list.length, 'must not repeat a country');

/** Why `recipient` may not get an SMS from a provider allowing `allowed` countries, or null when it may. */
export function recipientRefusal(recipient: string, allowed: readonly string[] | undefined): string | null {
  const { valid, country } = e164Country(recipient);
  if (!valid) return E164_MESSAGE;
  if (allowed && (!country || !allowed.includes(country))) {
    return `is a number in ${country ?? 'an unknown country'}, outside the provider's allowedCountries (${allowed.join(', ')})`;
  }
  return null;
}
