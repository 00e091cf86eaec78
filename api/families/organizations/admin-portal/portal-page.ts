// The portal's pages: the hosted sign-in pages' document (api/oidc/pages/page.ts: CSP with nonces, no external
// resource, no-store) in the environment's branding, with a wider layout for tables, a skip-free single <main>, the
// CSRF field every form carries, and the way back to the application (the link's return URL).
import type { FastifyReply } from 'fastify';
import type { DatabasePool } from 'slonik';
import { html, type Html } from '../../../oidc/pages/html.ts';
import { defaultPageContext, sendPage } from '../../../oidc/pages/page.ts';
import { createSignInSettingsQueries } from '../../../../db/oidc/sign-in/settings.ts';
import type { PortalSession } from '../../../../db/organizations/admin-portal/rows.ts';

const PORTAL_STYLE = html`
  main { max-width: 48rem; } textarea { width: 100%; box-sizing: border-box; min-height: 8rem; font-family: monospace; padding: 0.5rem; border: 1px solid
  #6b7280; border-radius: 0.25rem; } input[type=url] { width: 100%; box-sizing: border-box; padding: 0.5rem; font-size: 1rem; border: 1px solid #6b7280;
  border-radius: 0.25rem; } table { width: 100%; border-collapse: collapse; margin-top: 1rem; font-size: 0.9rem; } th, td { text-align: left; padding: 0.35rem;
  border-bottom: 1px solid #d1d5db; vertical-align: top; } code, .value { font-family: monospace; word-break: break-all; background: #f3f4f6; padding: 0.1rem
  0.25rem; } .ok { color: #14532d; background: #dcfce7; padding: 0.5rem; border-radius: 0.25rem; } section { margin-top: 1.5rem; } h2 { font-size: 1.1rem; } dl
  { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; } dt { font-weight: 600; } dd { margin: 0; }
`;

/** The hidden CSRF field of every form of a session's pages. */
export const csrfField = (token: string) => html`<input type="hidden" name="csrf" value="${token}" />`;

export const errorBox = (message: string) => html`<p class="error" role="alert">${message}</p>`;
export const okBox = (message: Html | string) => html`<div class="ok" role="status">${message}</div>`;

/** A table of `rows` under column `headings` (with an optional caption), or the `empty` sentence when there is none. */
export const dataTable = (headings: string[], rows: Html[], empty: string, caption?: string) =>
  rows.length
    ? html`<table>
        ${
          caption
            ? html`<caption>
                ${caption}
              </caption>`
            : ''
        }
        <thead>
          <tr>
            ${headings.map((h) => html`<th scope="col">${h}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${rows}
        </tbody>
      </table>`
    : html`<p>${empty}</p>`;

/** The environment's sign-in branding (name, logo, colours), or the defaults when the link names no environment. */
async function brandingOf(pool: DatabasePool, environmentId: string | null) {
  const settings = environmentId ? await createSignInSettingsQueries(pool, environmentId).find() : null;
  return settings
    ? { displayName: settings.displayName, logoUrl: settings.logoUrl, primaryColor: settings.primaryColor, backgroundColor: settings.backgroundColor }
    : {};
}

export interface PortalPage {
  title: string;
  body: Html;
  script?: string;
}

export async function sendPortalPage(pool: DatabasePool, reply: FastifyReply, status: number, session: PortalSession | null, page: PortalPage) {
  const done = session?.returnUrl ? html`<p class="links"><a href="${session.returnUrl}">Done: back to the application</a></p>` : '';
  const context = defaultPageContext(undefined, await brandingOf(pool, session?.environmentId ?? null));
  return sendPage(reply, status, { title: page.title, body: html`${page.body}${done}`, script: page.script, style: PORTAL_STYLE }, context);
}
