// The page of a one-time password link: a form that sets the user's password once, and the pages that say a link
// is gone or unknown.
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../../lib/passwords.ts';
import { html, type Html } from './html.ts';
import { fill, type Messages } from './i18n/index.ts';
import { errorBlock, field, type PageError } from './form.ts';
import { messagePage, type Page } from './page.ts';

const LENGTHS = html`minlength="${PASSWORD_MIN_LENGTH}" maxlength="${PASSWORD_MAX_LENGTH}"`;

export const passwordLinkPage = (userName: string, t: Messages, error?: PageError): Page => ({
  title: t.linkTitle,
  body: html`<p>${fill(t.linkChoose, { user: html`<strong>${userName}</strong>` })}</p>
    ${errorBlock(error)}
    <form method="post" action="">
      ${field({ id: 'password', label: t.linkNewPassword, type: 'password', autocomplete: 'new-password', focus: true, error, extra: LENGTHS })}
      ${field({ id: 'confirmation', label: t.linkRepeat, type: 'password', autocomplete: 'new-password', extra: LENGTHS })}
      <button class="primary" type="submit">${t.linkSetButton}</button>
    </form>`,
});

/** The password is set; `notice`: what the user should know about it (a breached password in `warn` mode). */
export const passwordSetPage = (t: Messages, notice: Html | '' = ''): Page =>
  notice
    ? {
        title: t.linkDoneTitle,
        body: html`${notice}
          <p>${t.linkDoneText}</p>`,
      }
    : messagePage(t.linkDoneTitle, t.linkDoneText);
export const linkGonePage = (t: Messages): Page => messagePage(t.linkGoneTitle, t.linkGoneText);
export const linkUnknownPage = (t: Messages): Page => messagePage(t.linkUnknownTitle, t.linkUnknownText);
/** Password sign-in is off in the environment (password policy): no password is set here. */
export const passwordOffPage = (t: Messages): Page => messagePage(t.passwordOffTitle, t.passwordOffText);
