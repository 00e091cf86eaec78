// "Continue with <connection>" buttons: each a GET form to the interaction's SSO start
// ({issuer}/interaction/:uid/sso/:connectionId), so they are real buttons that work without script.
import { html } from './html.ts';
import { fill, type Messages } from './i18n/index.ts';

export interface SsoButton {
  connectionId: string;
  name: string;
}

/** One button: `base` is the interaction's URL. */
export const ssoButton = (base: string, button: SsoButton, t: Messages, primary = false) =>
  html`<form method="get" action="${base}/sso/${button.connectionId}">
    <button type="submit" class="${primary ? 'primary' : 'sso'}">${fill(t.continueWith, { name: button.name })}</button>
  </form>`;

/** The identifier page's list of the environment's SSO connections (nothing when it has none). */
export const ssoButtons = (base: string, buttons: SsoButton[], t: Messages) =>
  buttons.length === 0
    ? ''
    : html`<section aria-label="${t.ssoSection}">
        <p>${t.orContinueWith}</p>
        ${buttons.map((b) => ssoButton(base, b, t))}
      </section>`;
