// The page context of a request to an environment's provider: its locale (ui_locales, Accept-Language, the
// environment's default) and branding, both from the Provider's snapshot (no query).
import type Provider from 'oidc-provider';
import { snapshotOf } from '../providers.ts';
import { chooseLocale, messagesOf } from './i18n/index.ts';
import type { PageContext } from './page.ts';
import type { Branding } from './branding.ts';

export function brandingOf(provider: Provider | undefined): { branding: Branding; defaultLocale: string | null } {
  const settings = provider ? snapshotOf(provider).signIn : null;
  if (!settings) return { branding: {}, defaultLocale: null };
  const { defaultLocale, displayName, logoUrl, primaryColor, backgroundColor } = settings;
  return { branding: { displayName, logoUrl, primaryColor, backgroundColor }, defaultLocale };
}

export function pageContextOf(provider: Provider | undefined, uiLocales: unknown, acceptLanguage: string | undefined): PageContext {
  const { branding, defaultLocale } = brandingOf(provider);
  const locale = chooseLocale(uiLocales, acceptLanguage, defaultLocale);
  return { locale, t: messagesOf(locale), branding };
}
