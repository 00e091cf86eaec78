// The locale of a sign-in page's catalog, for the messages it sends (the pages hand their catalog, not its name).
import { LOCALES, messagesOf, type Locale, type Messages } from '../oidc/pages/i18n/index.ts';

export const localeOf = (t: Messages): Locale | undefined => LOCALES.find((locale) => messagesOf(locale) === t);
