// The page context of a request to an environment's provider: its locale (ui_locales, Accept-Language, the
// environment's default) and branding, both from the environment's sign-in settings as its Provider was built with
// them (no query).
import type { ProviderSnapshot } from '../../../db/oidc/provider/snapshot.ts';
import { chooseLocale, messagesOf } from './i18n/index.ts';
import type { PageContext } from './page.ts';

export type SignInSettingsSnapshot = ProviderSnapshot['signIn'];

export function pageContextOf(settings: SignInSettingsSnapshot | undefined, uiLocales: unknown, acceptLanguage: string | undefined): PageContext {
  const locale = chooseLocale(uiLocales, acceptLanguage, settings?.defaultLocale);
  const branding = settings
    ? { displayName: settings.displayName, logoUrl: settings.logoUrl, primaryColor: settings.primaryColor, backgroundColor: settings.backgroundColor }
    : {};
  return { locale, t: messagesOf(locale), branding };
}
