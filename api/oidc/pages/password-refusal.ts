// The sign-in pages' message for a password the policy refused (api/passwords/policy.ts): one catalog key per
// refusal code, so a policy's refusal reads the same in every locale whatever policy is plugged in.
import { failingRules, type PasswordRefusal, type PasswordRefusalCode, type PasswordWarning } from '../../passwords/policy.ts';
import { html } from './html.ts';
import { fillText, type MessageKey, type Messages } from './i18n/index.ts';

const KEYS: Record<PasswordRefusalCode, MessageKey> = {
  too_short: 'passwordRefusalTooShort',
  too_long: 'passwordRefusalTooLong',
  whitespace_only: 'passwordRefusalWhitespaceOnly',
  missing_lowercase: 'passwordRefusalMissingLowercase',
  missing_uppercase: 'passwordRefusalMissingUppercase',
  missing_number: 'passwordRefusalMissingNumber',
  missing_symbol: 'passwordRefusalMissingSymbol',
  breached: 'passwordRefusalBreached',
};

/** Every rule the refusal names, each a sentence in the page's locale (the pages show them as a list). */
export const refusalText = (refusal: PasswordRefusal, t: Messages): string[] =>
  failingRules(refusal).map((rule) => fillText(t[KEYS[rule.code]], 'limit' in rule ? { limit: String(rule.limit) } : {}));

const WARNINGS: Record<PasswordWarning, MessageKey> = { breached: 'passwordWarningBreached' };

/** The notice of a password set with a warning (a breached password in `warn` mode), for the next page; '' without one. */
export const warningNotice = (warning: PasswordWarning | undefined, t: Messages) =>
  warning ? html`<p id="notice" class="notice" role="status">${t[WARNINGS[warning]]}</p>` : '';
