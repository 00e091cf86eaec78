// The sign-in pages' locales: the catalogs, the choice of a request's locale, and `fill` for a message's values.
import { html, Html } from '../html.ts';
import { en, type MessageKey, type Messages } from './en.ts';
import { de } from './de.ts';
import { fr } from './fr.ts';

export type { MessageKey, Messages };
export const LOCALES = ['en', 'de', 'fr'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'en';
const CATALOGS: Record<Locale, Messages> = { en, de, fr };

export const isLocale = (value: unknown): value is Locale => typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
export const messagesOf = (locale: Locale): Messages => CATALOGS[locale];

/** The supported locale of a language tag (`de-CH` → `de`), or undefined. */
const supported = (tag: string) => {
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0];
  return isLocale(primary) ? primary : undefined;
};

/** Accept-Language's tags by preference: q-values descending, the header's order among equals; q=0 and `*` dropped. */
export const acceptedLanguages = (header: string | undefined) =>
  (header ?? '')
    .split(',')
    .map((part, index) => {
      const [tag = '', ...params] = part.split(';').map((s) => s.trim());
      const q = params.find((p) => p.startsWith('q='));
      const weight = q ? Number(q.slice(2)) : 1;
      return { tag, weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((l) => l.tag !== '' && l.tag !== '*' && l.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index)
    .map((l) => l.tag);

/**
 * The locale of a page: the first supported one of `ui_locales` (space-separated, the authorization request's), else
 * the most preferred supported one of Accept-Language, else the environment's default, else `en`.
 */
export function chooseLocale(uiLocales: unknown, acceptLanguage: string | undefined, fallback?: string | null): Locale {
  const requested = typeof uiLocales === 'string' ? uiLocales.split(' ') : [];
  for (const tag of [...requested, ...acceptedLanguages(acceptLanguage)]) {
    const locale = supported(tag);
    if (locale) return locale;
  }
  return isLocale(fallback) ? fallback : DEFAULT_LOCALE;
}

/** A message with its `{name}` values filled in: the text is escaped, values are escaped unless they are Html. */
export function fill(template: string, values: Record<string, string | Html> = {}): Html {
  const parts = template.split(/\{(\w+)\}/);
  return new Html(parts.map((part, i) => (i % 2 === 0 ? html`${part}`.text : html`${values[part] ?? `{${part}}`}`.text)).join(''));
}

/** A message's plain text with its values (for mail, headers, logs). */
export const fillText = (template: string, values: Record<string, string> = {}) => template.replace(/\{(\w+)\}/g, (m, name: string) => values[name] ?? m);
