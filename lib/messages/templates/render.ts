// Renders a template into a message: the subject and text in the chosen locale with the values filled in, and an
// HTML part with the environment's branding (display name, logo, primary colour) where every value is escaped.
import type { TemplateCatalog } from './catalog.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { fr } from './fr.ts';
import type { TemplateRequest } from './params.ts';

export const TEMPLATE_LOCALES = ['en', 'de', 'fr'] as const;
export type TemplateLocale = (typeof TEMPLATE_LOCALES)[number];
const CATALOGS: Record<TemplateLocale, TemplateCatalog> = { en, de, fr };

/** The environment's branding, as its sign-in settings hold it (any may be null). */
export interface MessageBranding {
  displayName?: string | null | undefined;
  logoUrl?: string | null | undefined;
  primaryColor?: string | null | undefined;
}

export interface RenderedMessage {
  locale: TemplateLocale;
  subject: string;
  text: string;
  html: string;
}

const HEX = /^#[0-9a-f]{6}$/i;
const DEFAULT_PRIMARY = '#2251c5';
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const primaryOf = (tag: string | null | undefined): TemplateLocale | undefined => {
  const primary = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0];
  return (TEMPLATE_LOCALES as readonly string[]).includes(primary ?? '') ? (primary as TemplateLocale) : undefined;
};

/** The locale asked for (the page's or the user's), else the environment's default, else `en`. */
export const templateLocale = (requested: string | null | undefined, environmentDefault: string | null | undefined): TemplateLocale =>
  primaryOf(requested) ?? primaryOf(environmentDefault) ?? 'en';

/** A timestamp value (`expiresAt`) as a reader of `locale` writes it, in UTC. */
const formatValue = (name: string, value: string, locale: TemplateLocale) => {
  if (!name.endsWith('At') || Number.isNaN(Date.parse(value))) return value;
  const format = new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });
  return `${format.format(new Date(value))} UTC`;
};

/** Fills `{name}` placeholders: `value(name, v)` gives each value's text (escaped and tagged for HTML). */
const fill = (template: string, values: Record<string, string>, value: (name: string, v: string) => string, between: (s: string) => string) =>
  template
    .split(/(\{\w+\})/)
    .map((part) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      return name !== undefined && name in values ? value(name, values[name]!) : between(part);
    })
    .join('');

/** An https logo URL, or null (the sign-in pages allow no other). */
const logoOf = (url: string | null | undefined) => {
  try {
    return url && new URL(url).protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
};

export function renderMessage(request: TemplateRequest, locale: TemplateLocale, branding: MessageBranding = {}): RenderedMessage {
  const texts = CATALOGS[locale][request.template];
  const values = Object.fromEntries(Object.entries(request.params as Record<string, string>).map(([k, v]) => [k, formatValue(k, String(v), locale)]));
  const plain = (template: string) =>
    fill(
      template,
      values,
      (_n, v) => v,
      (s) => s,
    );
  const subject = plain(texts.subject);
  const text = plain(texts.text);
  const primary = branding.primaryColor && HEX.test(branding.primaryColor) ? branding.primaryColor : DEFAULT_PRIMARY;
  const body = fill(
    texts.text,
    values,
    (name, v) =>
      name === 'link'
        ? `<a href="${escapeHtml(v)}" style="color:${primary};word-break:break-all">${escapeHtml(v)}</a>`
        : name === 'code'
          ? `<strong style="font-size:20px;letter-spacing:2px">${escapeHtml(v)}</strong>`
          : escapeHtml(v),
    escapeHtml,
  );
  const name = branding.displayName?.trim() ? escapeHtml(branding.displayName.trim()) : '';
  const logo = logoOf(branding.logoUrl);
  const header = [
    logo ? `<img src="${escapeHtml(logo)}" alt="${name}" height="40" style="display:block;margin-bottom:12px">` : '',
    name ? `<div style="font-size:18px;font-weight:600;color:${primary}">${name}</div>` : '',
  ].join('');
  const html =
    `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
    `<title>${escapeHtml(subject)}</title></head>` +
    `<body style="margin:0;padding:24px;background:#f4f5f7;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#1d2330">` +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center">` +
    `<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border-radius:8px;border-top:4px solid ${primary}">` +
    `<tr><td style="padding:24px">${header}<p style="font-size:15px;line-height:1.5;margin:16px 0 0">${body}</p></td></tr>` +
    `</table></td></tr></table></body></html>`;
  return { locale, subject, text, html };
}
