// Sending a sign-in page: `Cache-Control: no-store`, and a CSP that loads nothing but the page's own inline style
// (by nonce) and, on the consent page, the client's logo from its exact URL. No script, no external anything,
// framing denied. `form-action` is left out on purpose: after a POST the provider redirects to the client's
// redirect_uri, and Chromium applies form-action to that redirect too.
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { html, type Html } from './html.ts';
import { STYLE } from './style.ts';

export interface Page {
  title: string;
  body: Html;
  /** An image the page shows from elsewhere (the client's logo), allowed by its exact URL. */
  imageUrl?: string | null | undefined;
}

const csp = (nonce: string, imageUrl?: string | null) =>
  [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `img-src ${imageUrl ? imageUrl.replace(/[;,\s]/g, encodeURIComponent) : "'none'"}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

export function sendPage(reply: FastifyReply, status: number, page: Page) {
  const nonce = randomBytes(16).toString('base64');
  const document = html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${page.title}</title>
        <style nonce="${nonce}">
          ${STYLE}
        </style>
      </head>
      <body>
        <main>
          <h1>${page.title}</h1>
          ${page.body}
        </main>
      </body>
    </html> `;
  return reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .header('content-security-policy', csp(nonce, page.imageUrl))
    .header('referrer-policy', 'no-referrer')
    .send(document.text);
}

/** A page that only says something (an expired sign-in, a used link, a refused form). */
export const messagePage = (title: string, message: string): Page => ({ title, body: html`<p>${message}</p>` });
