// "Forgot your password?": the identifier, then a page that says a link is on its way (whether or not an account
// matched).
import { html } from './html.ts';
import type { Messages } from './i18n/index.ts';
import { cancelForm, csrfField, errorBlock, field } from './form.ts';
import type { Page } from './page.ts';
import { challengeVendor, challengeWidget, stampField, type BotChallengeWidget } from './challenge.ts';

export interface ResetView {
  base: string;
  abort: string;
  csrf: string;
  identifier?: string | undefined;
  error?: string | undefined;
  /** The form's signed render time (bot detection). */
  stamp?: string | undefined;
  /** The bot challenge a protection asked for. */
  challenge?: BotChallengeWidget | undefined;
}

export const resetPage = (v: ResetView, t: Messages): Page => ({
  title: t.resetTitle,
  ...challengeVendor(v.challenge),
  body: html`<p>${t.resetText}</p>
    ${errorBlock(v.error)}
    <form method="post" action="${v.base}/reset">
      ${csrfField(v.csrf)} ${stampField(v.stamp)}
      ${field({ id: 'identifier', label: t.identifierLabel, autocomplete: 'username', value: v.identifier, focus: true, error: v.error })}
      ${challengeWidget(v.challenge, t)}
      <div class="actions"><button class="primary" type="submit">${t.sendLink}</button></div>
    </form>
    <p><a href="${v.base}">${t.backToSignIn}</a></p>
    ${cancelForm(v.abort, v.csrf, t.cancel)}`,
});

export const resetSentPage = (v: { base: string }, t: Messages): Page => ({
  title: t.resetSentTitle,
  body: html`<p>${t.resetSentText}</p>
    <p><a href="${v.base}">${t.backToSignIn}</a></p>`,
});
