// A phone number typed on the enrolment page: international format (a `+` and the country code; spaces, dashes,
// dots and brackets are ignored), valid for its country (libphonenumber-js), in a country an active SMS provider of
// the environment may text (its `allowedCountries`: SMS pumping protection).
import { e164Country } from '../../lib/sms/phone.ts';
import type { SmsAvailability } from '../../db/sms-codes/availability.ts';

export type TypedNumber =
  { ok: true; number: string; country: string | null } | { ok: false; reason: 'invalid' } | { ok: false; reason: 'country'; country: string };

export function typedNumber(input: string, availability: SmsAvailability): TypedNumber {
  const number = input.replace(/[\s\-.()]/g, '');
  const { valid, country } = e164Country(number);
  if (!valid) return { ok: false, reason: 'invalid' };
  if (availability.countries && (!country || !availability.countries.has(country))) return { ok: false, reason: 'country', country: country ?? '??' };
  return { ok: true, number, country };
}

/** How a number is shown and evented: `…` and its last 4 digits. */
export const phoneHint = (number: string) => `…${number.slice(-4)}`;

/** The number's country (ISO 3166 alpha-2), or null. */
export const countryOf = (number: string) => e164Country(number).country;

/** A country's name in `locale` (`DE` → `Germany`, `Deutschland`, `Allemagne`). */
export const countryName = (country: string, locale: string) => {
  try {
    return new Intl.DisplayNames([locale], { type: 'region' }).of(country) ?? country;
  } catch {
    return country;
  }
};
