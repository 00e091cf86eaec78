// The page of a one-time password link: a form that sets the user's password once.
import { html } from './html.ts';
import type { Page } from './page.ts';

export const passwordLinkPage = (userName: string, error?: string): Page => ({
  title: 'Set your password',
  body: html`<p>Choose a password for <strong>${userName}</strong>.</p>
    ${error ? html`<p class="error" role="alert">${error}</p>` : ''}
    <form method="post" action="">
      <label for="password">New password</label>
      <input id="password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="256" />
      <label for="confirmation">Repeat the password</label>
      <input id="confirmation" name="confirmation" type="password" autocomplete="new-password" required minlength="8" maxlength="256" />
      <button type="submit">Set password</button>
    </form>`,
});

export const passwordSetPage: Page = { title: 'Password set', body: html`<p>Your password is set. You can now sign in with it.</p>` };
