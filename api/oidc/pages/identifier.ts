// Identifier first: the login page asks only for a user name or email; the next page (factors.ts) offers what that
// user may sign in with.
import { html } from './html.ts';
import { fill, type Messages } from './i18n/index.ts';
import { cancelForm, csrfField, errorBlock, field } from './form.ts';
import type { Page } from './page.ts';
import { ssoButtons, type SsoButton } from './sso.ts';

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
}

export const identifierPage = (v: IdentifierView, t: Messages): Page => ({
  title: t.signInTitle,
  body: html`<p>${fill(t.continueTo, { client: html`<strong>${v.clientName}</strong>` })}</p>
    ${errorBlock(v.error)}
    <form method="post" action="${v.action}">
      ${csrfField(v.csrf)} ${field({ id: 'identifier', label: t.identifierLabel, autocomplete: 'username', value: v.identifier, focus: true, error: v.error })}
      <div class="actions"><button class="primary" type="submit">${t.continue}</button></div>
    </form>
    ${v.sso ? ssoButtons(v.sso.base, v.sso.buttons, t) : ''} ${v.signUpUrl ? html`<p>${t.noAccount} <a href="${v.signUpUrl}">${t.createAccount}</a></p>` : ''}
    ${cancelForm(v.abort, v.csrf, t.cancel)}`,
});
