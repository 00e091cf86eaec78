// Enrolling an authenticator during sign-in (the policy requires a second factor and the user has none): the QR code
// drawn on the server as inline SVG (no image source, so the page's CSP needs no img-src for it), the key as text for
// manual entry, a code to confirm; then the recovery codes, shown once, with a "I saved them" continue. Where the MFA
// settings allow it, "Email me a code instead" (mfa-email.ts) is the alternative to setting up an app.
import { html, Html } from './html.ts';
import type { Messages } from './i18n/index.ts';
import { cancelForm, csrfField, errorBlock, field } from './form.ts';
import { CODE_INPUT } from './mfa-challenge.ts';
import type { Page } from './page.ts';
import { mfaEmailOfferForm } from './mfa-email.ts';
import { mfaSmsEnrolLink } from './mfa-sms.ts';

export interface MfaEnrolView {
  base: string;
  abort: string;
  csrf: string;
  /** The QR code's SVG document, from lib/mfa/totp.ts (trusted: built by `qrcode` from the otpauth URI). */
  qrSvg: string;
  secret: string;
  /** Offer an emailed code instead of enrolling. */
  emailOffer?: boolean;
  /** Offer to add a phone number (texted codes) instead of enrolling. */
  smsOffer?: boolean;
  error?: string | undefined;
}

/** The key in groups of four, as authenticator apps show keys (spaces are ignored when typed). */
const grouped = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ');
const sized = (svg: string) => new Html(svg.replace(/^<svg /, '<svg width="192" height="192" aria-hidden="true" focusable="false" '));

export const mfaEnrolPage = (v: MfaEnrolView, t: Messages): Page => ({
  title: t.mfaEnrolTitle,
  body: html`<p>${t.mfaEnrolText}</p>
    ${errorBlock(v.error)}
    <div class="qr" role="img" aria-label="${t.mfaQrLabel}">${sized(v.qrSvg)}</div>
    <p>${t.mfaSecretLabel}: <code id="secret">${grouped(v.secret)}</code></p>
    <form method="post" action="${v.base}/mfa/enrol">
      ${csrfField(v.csrf)} ${field({ id: 'code', label: t.mfaCodeLabel, autocomplete: 'one-time-code', focus: true, error: v.error, extra: CODE_INPUT })}
      <div class="actions"><button class="primary" type="submit">${t.mfaConfirm}</button></div>
    </form>
    ${v.smsOffer ? mfaSmsEnrolLink(v, t) : ''} ${v.emailOffer ? mfaEmailOfferForm(v, t) : ''} ${cancelForm(v.abort, v.csrf, t.cancel)}`,
});

export const mfaRecoveryCodesPage = (v: { base: string; csrf: string; codes: string[] }, t: Messages): Page => ({
  title: t.mfaCodesTitle,
  body: html`<p>${t.mfaCodesText}</p>
    <ul id="recovery-codes">
      ${v.codes.map((code) => html`<li><code>${code}</code></li>`)}
    </ul>
    <form method="post" action="${v.base}/mfa/done">
      ${csrfField(v.csrf)}
      <div class="actions"><button class="primary" type="submit">${t.mfaCodesSaved}</button></div>
    </form>`,
});
