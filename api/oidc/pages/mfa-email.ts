// An emailed code as the second factor: the offer on the TOTP and enrolment pages ("Email me a code instead", a form:
// asking sends mail), and the page where the code from the email is typed, with "Send a new code" and the way back
// to the authenticator app (or to setting one up).
import { html } from './html.ts';
import type { Messages } from './i18n/index.ts';
import { cancelForm, csrfField, errorBlock, field } from './form.ts';
import type { Page } from './page.ts';

const CODE_INPUT = html`inputmode="numeric" pattern="[0-9]{6}" maxlength="6"`;

/** The form that sends the code; `base` is the interaction's URL. */
export const mfaEmailOfferForm = (v: { base: string; csrf: string }, t: Messages) =>
  html`<form method="post" action="${v.base}/mfa/email/send">
    ${csrfField(v.csrf)}
    <div class="actions"><button type="submit">${t.mfaEmailOffer}</button></div>
  </form>`;

export interface MfaEmailView {
  /** The interaction's URL: the code posts to `${base}/mfa/email`, a new one is asked at `${base}/mfa/email/send`. */
  base: string;
  abort: string;
  csrf: string;
  /** The user has an authenticator (the link goes back to its code), or would set one up. */
  enrolled: boolean;
  /** A protection's step-up: why the code was sent (instead of the usual text); no way to an authenticator the user lacks. */
  stepUp?: string | undefined;
  error?: string | undefined;
}

export const mfaEmailPage = (v: MfaEmailView, t: Messages): Page => ({
  title: t.mfaEmailTitle,
  body: html`<p>${v.stepUp ?? t.mfaEmailText}</p>
    ${errorBlock(v.error)}
    <form method="post" action="${v.base}/mfa/email">
      ${csrfField(v.csrf)} ${field({ id: 'code', label: t.emailCodeLabel, autocomplete: 'one-time-code', focus: true, error: v.error, extra: CODE_INPUT })}
      <div class="actions"><button class="primary" type="submit">${t.mfaVerify}</button></div>
    </form>
    <form method="post" action="${v.base}/mfa/email/send">
      ${csrfField(v.csrf)}
      <button type="submit">${t.emailCodeResend}</button>
    </form>
    ${v.stepUp && !v.enrolled ? '' : html`<p><a href="${v.base}/mfa">${v.enrolled ? t.mfaUseAuthenticator : t.mfaEmailEnrolInstead}</a></p>`}
    ${cancelForm(v.abort, v.csrf, t.cancel)}`,
});
