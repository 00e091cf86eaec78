// The passkey pieces of the sign-in pages, run by ./passkey-script.ts: the factors page's "Sign in with a passkey"
// offer, the identifier form's conditional UI (passkeys in the field's autofill), and the page after a sign-in that
// offers to create one. Without JavaScript each shows a note instead of its button (progressive enhancement).
import { html, type Html } from './html.ts';
import type { Messages } from './i18n/index.ts';
import { csrfField } from './form.ts';
import type { Page } from './page.ts';
import { webauthnScriptUrl } from './passkey-script.ts';

/** What the script of a passkey element needs: where to get options and post the response, and the CSRF token. */
export interface PasskeyEndpoints {
  options: string;
  verify: string;
  csrf: string;
}

/** The data attributes of an element the script drives, with its localised fallbacks. */
export const passkeyAttributes = (kind: 'get' | 'conditional' | 'create', e: PasskeyEndpoints, t: Messages, failed = t.passkeyFailed): Html =>
  html`data-passkey="${kind}" data-options="${e.options}" data-verify="${e.verify}" data-csrf="${e.csrf}" data-cancelled="${t.passkeyCancelled}"
  data-failed="${failed}"`;

/** The element the script announces its errors in (focused when it shows one). */
export const passkeyAlert = html`<p class="error" role="alert" tabindex="-1" data-passkey-error hidden></p>`;

/** The URLs of the sign-in ceremony under the interaction at `base`. */
export const signInEndpoints = (base: string, csrf: string): PasskeyEndpoints => ({
  options: `${base}/passkey/options`,
  verify: `${base}/passkey/verify`,
  csrf,
});

/**
 * The factors page's passkey offer (the same for every identifier), with "lost your passkey" to the password reset
 * (`reset`: unless password sign-in is off).
 */
export const passkeyOffer = (base: string, csrf: string, t: Messages, reset = true): Html =>
  html`<section class="passkey" ${passkeyAttributes('get', signInEndpoints(base, csrf), t)}>
    <p data-nojs>${t.passkeyNeedsScript}</p>
    ${passkeyAlert}
    <div class="actions"><button type="button" data-passkey-start hidden>${t.passkeySignIn}</button></div>
    ${reset ? html`<p><a href="${base}/reset">${t.passkeyForgot}</a></p>` : ''}
  </section>`;

/** The script URL for a page of the interaction at `base` (the page's `script`). */
export const passkeyScript = webauthnScriptUrl;

export interface PasskeyCreateView {
  base: string;
  csrf: string;
}

/** The optional step after a sign-in of a user without a passkey: create one now, or continue without. */
export const passkeyCreatePage = (v: PasskeyCreateView, t: Messages): Page => ({
  title: t.passkeyCreateTitle,
  script: passkeyScript(v.base),
  body: html`<p>${t.passkeyCreateText}</p>
    <div
      ${passkeyAttributes('create', { options: `${v.base}/passkey/create/options`, verify: `${v.base}/passkey/create/verify`, csrf: v.csrf }, t, t.passkeyCreateFailed)}
    >
      <p data-nojs>${t.passkeyCreateNeedsScript}</p>
      ${passkeyAlert}
      <div class="actions"><button class="primary" type="button" data-passkey-start hidden>${t.passkeyCreateButton}</button></div>
    </div>
    <form method="post" action="${v.base}/passkey/skip">
      ${csrfField(v.csrf)}
      <button type="submit">${t.passkeyNotNow}</button>
    </form>`,
});
