// The login page of an environment's OpenID provider: directory userName (or email) and password.
import { html } from './html.ts';
import type { Page } from './page.ts';

export interface LoginView {
  action: string;
  abort: string;
  csrf: string;
  clientName: string;
  userName?: string | undefined;
  rememberMe: boolean;
  error?: string | undefined;
}

export const loginPage = (v: LoginView): Page => ({
  title: 'Sign in',
  body: html`<p>to continue to <strong>${v.clientName}</strong></p>
    ${v.error ? html`<p class="error" role="alert">${v.error}</p>` : ''}
    <form method="post" action="${v.action}">
      <input type="hidden" name="csrf" value="${v.csrf}" />
      <label for="userName">User name or email</label>
      <input id="userName" name="userName" type="text" autocomplete="username" required autofocus value="${v.userName ?? ''}" />
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required />
      ${v.rememberMe ? html`<label><input type="checkbox" name="remember" value="yes" /> Keep me signed in</label>` : ''}
      <div class="actions"><button type="submit">Sign in</button></div>
    </form>
    <form method="post" action="${v.abort}">
      <input type="hidden" name="csrf" value="${v.csrf}" />
      <button type="submit">Cancel</button>
    </form>`,
});
