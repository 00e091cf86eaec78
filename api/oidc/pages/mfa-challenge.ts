// The second-factor pages of a user with an authenticator: the TOTP code (6 digits, `one-time-code` so the
// platform can fill it, numeric keyboard) with "remember this device" when the policy remembers devices, and the
// recovery-code alternative on its own page; and "Email me a code instead" where the MFA settings allow it (mfa-email.ts).
import { html } from './html.ts';
import type { Messages } from './i18n/index.ts';
import { cancelForm, csrfField, errorBlock, field } from './form.ts';
import type { Page } from './page.ts';
import { mfaEmailOfferForm } from './mfa-email.ts';
import { mfaSmsOfferForm } from './mfa-sms.ts';

export interface MfaChallengeView {
  /** The interaction's URL; the forms post to `${base}/mfa/totp` and `${base}/mfa/recovery`. */
  base: string;
  abort: string;
  csrf: string;
  rememberDevice: boolean;
  /** Offer an emailed code instead (the setting is on, the user has a verified email, the first factor was no email). */
  emailOffer?: boolean;
  /** Offer a code texted to the user's verified phone number (texting is on, the user has a phone). */
  smsOffer?: boolean;
  /** Why this code is asked, instead of the usual text (a protection's step-up). */
  intro?: string | undefined;
  error?: string | undefined;
}

export const CODE_INPUT = html`inputmode="numeric" pattern="[0-9]{6}" maxlength="6"`;

export const mfaChallengePage = (v: MfaChallengeView, t: Messages): Page => ({
  title: t.mfaTitle,
  body: html`<p>${v.intro ?? t.mfaText}</p>
    ${errorBlock(v.error)}
    <form method="post" action="${v.base}/mfa/totp">
      ${csrfField(v.csrf)} ${field({ id: 'code', label: t.mfaCodeLabel, autocomplete: 'one-time-code', focus: true, error: v.error, extra: CODE_INPUT })}
      ${v.rememberDevice ? html`<label class="check"><input type="checkbox" name="rememberDevice" value="yes" /> ${t.mfaRememberDevice}</label>` : ''}
      <div class="actions"><button class="primary" type="submit">${t.mfaVerify}</button></div>
    </form>
    <p><a href="${v.base}/mfa/recovery">${t.mfaUseRecovery}</a></p>
    ${v.smsOffer ? mfaSmsOfferForm(v, t) : ''} ${v.emailOffer ? mfaEmailOfferForm(v, t) : ''} ${cancelForm(v.abort, v.csrf, t.cancel)}`,
});

export const mfaRecoveryPage = (v: Omit<MfaChallengeView, 'rememberDevice' | 'emailOffer' | 'smsOffer'>, t: Messages): Page => ({
  title: t.mfaRecoveryTitle,
  body: html`<p>${t.mfaRecoveryText}</p>
    ${errorBlock(v.error)}
    <form method="post" action="${v.base}/mfa/recovery">
      ${csrfField(v.csrf)}
      ${field({ id: 'recoveryCode', label: t.mfaRecoveryLabel, autocomplete: 'off', focus: true, error: v.error, extra: html`maxlength="64" spellcheck="false"` })}
      <div class="actions"><button class="primary" type="submit">${t.mfaUseRecoveryButton}</button></div>
    </form>
    <p><a href="${v.base}/mfa">${t.mfaUseAuthenticator}</a></p>
    ${cancelForm(v.abort, v.csrf, t.cancel)}`,
});
