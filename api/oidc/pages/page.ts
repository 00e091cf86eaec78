// Sending a sign-in page: `Cache-Control: no-store`, and a CSP that loads nothing but the page's own inline style
// (by nonce) and the images the page shows (the environment's logo, the client's logo) by their exact URLs. No
// script (except a page's own `script`, by nonce, which may fetch this origin), nothing external (but the bot challenge's
// vendor on a page that shows its widget), framing denied. `form-action` is left out on purpose: after a POST the provider
// redirects to the client's redirect_uri (or post_logout_redirect_uri), and Chromium applies form-action to that
// redirect too.
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { html, type Html } from './html.ts';
import { brandStyle, type Branding } from './branding.ts';
import { STYLE } from './style.ts';
import { DEFAULT_LOCALE, messagesOf, type Locale, type Messages } from './i18n/index.ts';

export interface Page {
  title: string;
  body: Html;
  /** An image the page shows from elsewhere (the client's logo), allowed by its exact URL. */
  imageUrl?: string | null | undefined;
  /** A script of this origin the page runs (by nonce; it may fetch this origin only), e.g. the passkey script. */
  script?: string | undefined;
  /** A vendor's widget script (the bot challenge: pages/challenge.ts), by nonce, and the origins it loads from. */
  vendor?: { script: string; sources: string[] } | undefined;
  /** More rules for the page's stylesheet (the Admin Portal's wider layout and tables). */
  style?: Html | undefined;
}

/** Who a page is rendered for: the negotiated locale (its messages) and the environment's branding. */
export interface PageContext {
  locale: Locale;
  t: Messages;
  branding: Branding;
}

export const defaultPageContext = (locale: Locale = DEFAULT_LOCALE, branding: Branding = {}): PageContext => ({ locale, t: messagesOf(locale), branding });

const source = (url: string) => url.replace(/[;,\s]/g, encodeURIComponent);

const csp = (nonce: string, images: string[], script: boolean, vendor: string[] = []) =>
  [
    "default-src 'none'",
    `style-src ${[`'nonce-${nonce}'`, ...vendor].join(' ')}`,
    ...(script || vendor.length ? [`script-src ${[`'nonce-${nonce}'`, ...vendor].join(' ')}`, `connect-src ${["'self'", ...vendor].join(' ')}`] : []),
    ...(vendor.length ? [`frame-src ${vendor.join(' ')}`] : []),
    `img-src ${images.length ? [...new Set(images)].map(source).join(' ') : "'none'"}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

/** The page's document and the headers it must be sent with (for Fastify replies and the provider's Koa pages alike). */
export function renderPage(page: Page, context: PageContext = defaultPageContext()) {
  const nonce = randomBytes(16).toString('base64');
  const { branding } = context;
  const logo = branding.logoUrl ?? null;
  const name = branding.displayName;
  const mark = logo ? html`<img src="${logo}" alt="${name ?? ''}" />` : html`<span>${name}</span>`;
  const brand = logo || name ? html`<div class="brand">${mark}</div>` : '';
  const document = html`<!doctype html>
    <html lang="${context.locale}">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${page.title}</title>
        <style nonce="${nonce}">
          ${brandStyle(branding)} ${STYLE} ${page.style}
        </style>
        ${page.script ? html`<script nonce="${nonce}" src="${page.script}" defer></script>` : ''}
        ${page.vendor ? html`<script nonce="${nonce}" src="${page.vendor.script}" async defer></script>` : ''}
      </head>
      <body>
        <main>
          ${brand}
          <h1>${page.title}</h1>
          ${page.body}
        </main>
      </body>
    </html> `;
  const images = [logo, page.imageUrl].filter((u): u is string => !!u);
  return {
    text: document.text,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'content-language': context.locale,
      'cache-control': 'no-store',
      pragma: 'no-cache',
      'content-security-policy': csp(nonce, images, !!page.script, page.vendor?.sources),
      'referrer-policy': 'no-referrer',
    } as Record<string, string>,
  };
}

export function sendPage(reply: FastifyReply, status: number, page: Page, context?: PageContext) {
  const { text, headers } = renderPage(page, context);
  return reply.status(status).headers(headers).send(text);
}

/** A page that only says something (an expired sign-in, a used link, a refused form). */
export const messagePage = (title: string, message: string): Page => ({ title, body: html`<p>${message}</p>` });
