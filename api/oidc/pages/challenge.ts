// What a protected form carries besides its CSRF token: the form stamp (the render time, signed: bot detection reads
// it) and, when a protection asked for it, the bot-challenge add-on's widget, whose token the vendor's script adds to
// the form. A page with the widget loads the vendor's script, and its CSP allows the vendor's origins (page.ts).
import { BOT_CHALLENGE_VENDORS, type BotChallengeWidget } from '../../../lib/challenge/kinds.ts';
import { html } from './html.ts';
import type { Messages } from './i18n/index.ts';
import type { Page } from './page.ts';

export type { BotChallengeWidget };

/** The hidden field with the form stamp (api/protections/bot-detection.ts reads it). */
export const stampField = (stamp: string | undefined) => (stamp ? html`<input type="hidden" name="formStamp" value="${stamp}" />` : '');

/** The widget, inside the form it protects. */
export const challengeWidget = (widget: BotChallengeWidget | undefined, t: Messages) =>
  widget
    ? html`<div class="${BOT_CHALLENGE_VENDORS[widget.kind].widgetClass}" data-sitekey="${widget.siteKey}"></div>
        <noscript><p>${t.challengeNoScript}</p></noscript>`
    : '';

/** The page's vendor script and CSP sources when it shows the widget. */
export const challengeVendor = (widget: BotChallengeWidget | undefined): Pick<Page, 'vendor'> =>
  widget ? { vendor: { script: BOT_CHALLENGE_VENDORS[widget.kind].script, sources: BOT_CHALLENGE_VENDORS[widget.kind].sources } } : {};
