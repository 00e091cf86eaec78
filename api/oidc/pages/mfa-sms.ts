// A texted code as the second factor: "Text me a code" on the TOTP page, "Use a text message instead" on the
// enrolment page; the page where the texted code is typed (or, before any was sent, the button that sends it), with
// "Send a new code"; and the enrolment of a phone number: the number (international format), then its code.
import { html } from './html.ts';
import { fill, type Messages } from './i18n/index.ts';
import { cancelForm, csrfField, errorBlock, field } from './form.ts';
import type { Page } from './page.ts';

const CODE_INPUT = html`inputmode="numeric" pattern="[0-9]{6}" maxlength="6"`;

/** The form that texts a code to the user's verified number; `base` is the interaction's URL. */
export const mfaSmsOfferForm = (v: { base: string; csrf: string }, t: Messages) =>
  html`<form method="post" action="${v.base}/mfa/sms/send">
    ${csrfField(v.csrf)}
    <div class="actions"><button type="submit">${t.mfaSmsOffer}</button></div>
  </form>`;

/** The way to enrol a phone number instead of an authenticator app. */
export const mfaSmsEnrolLink = (v: { base: string }, t: Messages) => html`<p><a href="${v.base}/mfa/sms/enrol">${t.mfaSmsEnrolOffer}</a></p>`;

export interface MfaSmsView {
  base: string;
  abort: string;
  csrf: string;
  /** `…` and the last 4 digits of the number. */
  hint: string;
  /** A code was texted at this sign-in (the code field is shown), or not yet (only the button that sends one). */
  sent: boolean;
  /** The user has an authenticator (a link goes back to its code). */
  enrolled: boolean;
  error?: string | undefined;
}

const sendForm = (v: { base: string; csrf: string }, action: string, label: string, primary: boolean, extra = html``) =>
  html`<form method="post" action="${v.base}${action}">
    ${csrfField(v.csrf)} ${extra}
    <div class="actions"><button ${primary ? html`class="primary" ` : ''}type="submit">${label}</button></div>
  </form>`;

const codeForm = (v: { base: string; csrf: string; error?: string | undefined }, action: string, t: Messages) =>
  html`<form method="post" action="${v.base}${action}">
    ${csrfField(v.csrf)} ${field({ id: 'code', label: t.mfaSmsCodeLabel, autocomplete: 'one-time-code', focus: true, error: v.error, extra: CODE_INPUT })}
    <div class="actions"><button class="primary" type="submit">${t.mfaVerify}</button></div>
  </form>`;

export const mfaSmsPage = (v: MfaSmsView, t: Messages): Page => ({
  title: t.mfaSmsTitle,
  body: html`<p>${fill(v.sent ? t.mfaSmsText : t.mfaSmsStartText, { hint: v.hint })}</p>
    ${errorBlock(v.error)} ${v.sent ? codeForm(v, '/mfa/sms', t) : ''} ${sendForm(v, '/mfa/sms/send', v.sent ? t.emailCodeResend : t.mfaSmsOffer, !v.sent)}
    ${v.enrolled ? html`<p><a href="${v.base}/mfa">${t.mfaUseAuthenticator}</a></p>` : ''} ${cancelForm(v.abort, v.csrf, t.cancel)}`,
});

export interface MfaSmsEnrolView {
  base: string;
  abort: string;
  csrf: string;
  /** The number typed (shown again after an error), or the number the code went to. */
  phone?: string | undefined;
  /** A code was texted to `phone`: the page asks for it. */
  sent?: boolean;
  error?: string | undefined;
}

export const mfaSmsEnrolPage = (v: MfaSmsEnrolView, t: Messages): Page => {
  if (v.sent && v.phone) {
    const phone = html`<input type="hidden" name="phone" value="${v.phone}" />`;
    return {
      title: t.mfaSmsTitle,
      body: html`<p>${fill(t.mfaSmsText, { hint: `…${v.phone.slice(-4)}` })}</p>
        ${errorBlock(v.error)} ${codeForm(v, '/mfa/sms/enrol/confirm', t)} ${sendForm(v, '/mfa/sms/enrol', t.emailCodeResend, false, phone)}
        <p><a href="${v.base}/mfa/sms/enrol">${t.mfaSmsOtherNumber}</a></p>
        ${cancelForm(v.abort, v.csrf, t.cancel)}`,
    };
  }
  return {
    title: t.mfaSmsEnrolTitle,
    body: html`<p>${t.mfaSmsEnrolText}</p>
      ${errorBlock(v.error)}
      <form method="post" action="${v.base}/mfa/sms/enrol">
        ${csrfField(v.csrf)}
        ${field({ id: 'phone', label: t.mfaSmsPhoneLabel, autocomplete: 'tel', value: v.phone, focus: true, error: v.error, extra: html`inputmode="tel" maxlength="32"` })}
        <div class="actions"><button class="primary" type="submit">${t.mfaSmsSendCode}</button></div>
      </form>
      <p><a href="${v.base}/mfa">${t.mfaEmailEnrolInstead}</a></p>
      ${cancelForm(v.abort, v.csrf, t.cancel)}`,
  };
};
