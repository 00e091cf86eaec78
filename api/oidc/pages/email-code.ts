// The email code pages: the code page (the same for every identifier: "if an account exists, we sent a code"), with
// a form for the code and one that asks for a new code; and the pages a magic link answers when it cannot sign in.
import { html } from './html.ts';
import { fill, type Messages } from './i18n/index.ts';
import { cancelForm, csrfField, errorBlock, field } from './form.ts';
import { messagePage, type Page } from './page.ts';

export interface EmailCodeView {
  /** The interaction's URL: the code posts to `${base}/email-code`, a new code is asked at `${base}/email-code/send`. */
  base: string;
  abort: string;
  csrf: string;
  identifier: string;
  error?: string | undefined;
}

const CODE_INPUT = html`inputmode="numeric" pattern="[0-9]{6}" maxlength="6"`;

/** The form of the factors page that sends the code (button first when it is the first offer). */
export const emailCodeOfferForm = (v: { base: string; csrf: string; identifier: string }, t: Messages, first: boolean) =>
  html`<form method="post" action="${v.base}/email-code/send">
    ${csrfField(v.csrf)}
    <input type="hidden" name="identifier" value="${v.identifier}" />
    <div class="actions"><button${first ? html` class="primary"` : ''} type="submit">${t.emailCodeOffer}</button></div>
  </form>`;

export const emailCodePage = (v: EmailCodeView, t: Messages): Page => ({
  title: t.verifyTitle,
  body: html`<p>${fill(t.emailCodeSent, { user: html`<strong>${v.identifier}</strong>` })} <a href="${v.base}">${t.otherAccount}</a></p>
    ${errorBlock(v.error)}
    <form method="post" action="${v.base}/email-code">
      ${csrfField(v.csrf)}
      <input type="hidden" name="identifier" value="${v.identifier}" />
      ${field({ id: 'code', label: t.emailCodeLabel, autocomplete: 'one-time-code', focus: true, error: v.error, extra: CODE_INPUT })}
      <div class="actions"><button class="primary" type="submit">${t.signInButton}</button></div>
    </form>
    <form method="post" action="${v.base}/email-code/send">
      ${csrfField(v.csrf)}
      <input type="hidden" name="identifier" value="${v.identifier}" />
      <button type="submit">${t.emailCodeResend}</button>
    </form>
    ${cancelForm(v.abort, v.csrf, t.cancel)}`,
});

/** A magic link opened in a browser without the sign-in (another device, another browser): type the code instead. */
export const emailLinkElsewherePage = (t: Messages): Page => messagePage(t.emailLinkElsewhereTitle, t.emailLinkElsewhereText);

/** A magic link that is expired, used, replaced or wrong, opened where the sign-in is. */
export const emailLinkGonePage = (t: Messages, signIn: string): Page => ({
  title: t.emailLinkGoneTitle,
  body: html`<p>${t.emailLinkGoneText}</p>
    <p><a href="${signIn}">${t.backToSignIn}</a></p>`,
});
