// Sign-up (where the environment allows it): email, name and password; then the page that asks for the code sent
// to the email.
import { html, type Html } from './html.ts';
import { fill, type Messages } from './i18n/index.ts';
import { cancelForm, csrfField, errorBlock, field, type PageError } from './form.ts';
import type { Page } from './page.ts';
import { formFields, type FormsView } from './form-fields.ts';
import { challengeVendor, challengeWidget, stampField, type BotChallengeWidget } from './challenge.ts';

export interface SignUpView {
  base: string;
  abort: string;
  csrf: string;
  email?: string | undefined;
  displayName?: string | undefined;
  error?: PageError | undefined;
  /** Which field the error is about. */
  errorField?: 'email' | 'password' | undefined;
  /** Whether the form asks for a password (default); not when password sign-in is off (the emailed code verifies). */
  password?: boolean;
  /** The fields of the forms attached to sign-up, if any. */
  forms?: FormsView | undefined;
  /** The form's signed render time (bot detection). */
  stamp?: string | undefined;
  /** The bot challenge a protection asked for. */
  challenge?: BotChallengeWidget | undefined;
}

export const signUpPage = (v: SignUpView, t: Messages): Page => ({
  title: t.signUpTitle,
  ...challengeVendor(v.challenge),
  body: html`${errorBlock(v.error)}
    <form method="post" action="${v.base}/sign-up">
      ${csrfField(v.csrf)} ${stampField(v.stamp)}
      ${field({ id: 'email', label: t.emailLabel, type: 'email', autocomplete: 'email', value: v.email, focus: !v.error, error: v.errorField === 'email' ? v.error : undefined })}
      <label for="displayName">${t.displayNameLabel}</label>
      <input id="displayName" name="displayName" type="text" autocomplete="name" maxlength="200" value="${v.displayName ?? ''}" />
      ${v.password === false ? '' : field({ id: 'password', label: t.newPasswordLabel, type: 'password', autocomplete: 'new-password', error: v.errorField === 'password' ? v.error : undefined })}
      ${formFields(v.forms, t)} ${challengeWidget(v.challenge, t)}
      <div class="actions"><button class="primary" type="submit">${t.createAccount}</button></div>
    </form>
    <p>${t.haveAccount} <a href="${v.base}">${t.signInButton}</a></p>
    ${cancelForm(v.abort, v.csrf, t.cancel)}`,
});

export interface VerifyView {
  base: string;
  abort: string;
  csrf: string;
  signUp: string;
  email: string;
  error?: string | undefined;
  /** A notice about the password just chosen (a breached password in `warn` mode). */
  notice?: Html | '' | undefined;
}

export const verifyPage = (v: VerifyView, t: Messages): Page => ({
  title: t.verifyTitle,
  body: html`${v.notice ?? ''}
    <p>${fill(t.verifyText, { email: html`<strong>${v.email}</strong>` })}</p>
    ${errorBlock(v.error)}
    <form method="post" action="${v.base}/verify">
      ${csrfField(v.csrf)}
      <input type="hidden" name="signUp" value="${v.signUp}" />
      <input type="hidden" name="email" value="${v.email}" />
      ${field({ id: 'code', label: t.codeLabel, autocomplete: 'one-time-code', focus: true, error: v.error, extra: html`inputmode="numeric" pattern="[0-9]{6}" maxlength="6"` })}
      <div class="actions"><button class="primary" type="submit">${t.verifyButton}</button></div>
    </form>
    ${cancelForm(v.abort, v.csrf, t.cancel)}`,
});
