// Identifier first: the login page asks only for a user name or email; the next page (factors.ts) offers what that
// user may sign in with.
import { html } from './html.ts';
import { fill, type Messages } from './i18n/index.ts';
import { cancelForm, csrfField, errorBlock, field } from './form.ts';
import type { Page } from './page.ts';
import { ssoButtons, type SsoButton } from './sso.ts';
import { passkeyAlert, passkeyAttributes, passkeyScript, type PasskeyEndpoints } from './passkey.ts';

export interface IdentifierView {
  action: string;
  abort: string;
  csrf: string;
  clientName: string;
  identifier?: string | undefined;
  error?: string | undefined;
  /** The sign-up page, when the environment allows sign-up. */
  signUpUrl?: string | null | undefined;
  /** The environment's SSO connections ("Continue with …"), under the interaction's URL `base`. */
  sso?: { base: string; buttons: SsoButton[] } | undefined;
  /** Conditional UI: the browser offers the passkeys it holds in the field's autofill (./passkey.ts). */
  passkey?: PasskeyEndpoints | undefined;
}

export function identifierPage(v: IdentifierView, t: Messages): Page {
  const form = html`<form method="post" action="${v.action}">
    ${csrfField(v.csrf)}
    ${field({ id: 'identifier', label: t.identifierLabel, autocomplete: v.passkey ? 'username webauthn' : 'username', value: v.identifier, focus: true, error: v.error })}
    <div class="actions"><button class="primary" type="submit">${t.continue}</button></div>
  </form>`;
  return {
    title: t.signInTitle,
    script: v.passkey ? passkeyScript(v.action.replace(/\/identifier$/, '')) : undefined,
    body: html`<p>${fill(t.continueTo, { client: html`<strong>${v.clientName}</strong>` })}</p>
      ${errorBlock(v.error)} ${v.passkey ? html`<div ${passkeyAttributes('conditional', v.passkey, t)}>${passkeyAlert} ${form}</div>` : form}
      ${v.sso ? ssoButtons(v.sso.base, v.sso.buttons, t) : ''} ${v.signUpUrl ? html`<p>${t.noAccount} <a href="${v.signUpUrl}">${t.createAccount}</a></p>` : ''}
      ${cancelForm(v.abort, v.csrf, t.cancel)}`,
  };
}
