// The consent page: what the client asks for, and allow or cancel.
import { html } from './html.ts';
import { fill, type MessageKey, type Messages } from './i18n/index.ts';
import type { Page } from './page.ts';

export interface ConsentView {
  action: string;
  abort: string;
  csrf: string;
  client: { name: string; logoUri: string | null; clientUri: string | null; policyUri: string | null; tosUri: string | null };
  userName: string;
  scopes: string[];
  /** API audiences (resource indicators) and the scopes asked for each. */
  resources: { resource: string; scopes: string[] }[];
}

const SCOPE_TEXT: Record<string, MessageKey> = {
  openid: 'scopeOpenid',
  profile: 'scopeProfile',
  email: 'scopeEmail',
  phone: 'scopePhone',
  address: 'scopeAddress',
  offline_access: 'scopeOfflineAccess',
};

/** A link the page may show: http(s) only, never `javascript:`. */
const safeUrl = (value: string | null) => {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
};

/** The logo, from https only: the CSP allows exactly this URL. */
export const logoUrl = (value: string | null) => {
  const url = safeUrl(value);
  return url?.startsWith('https:') ? url : null;
};

export const consentPage = (v: ConsentView, t: Messages): Page => {
  const logo = logoUrl(v.client.logoUri);
  const home = safeUrl(v.client.clientUri);
  const policy = safeUrl(v.client.policyUri);
  const tos = safeUrl(v.client.tosUri);
  const client = html`<strong>${home ? html`<a href="${home}" rel="noopener noreferrer">${v.client.name}</a>` : v.client.name}</strong>`;
  return {
    title: t.consentTitle,
    imageUrl: logo,
    body: html`<div class="client">
        ${logo ? html`<img src="${logo}" alt="" />` : ''}
        <p>${fill(t.consentWants, { client, user: html`<strong>${v.userName}</strong>` })}</p>
      </div>
      <p>${t.consentAsks}</p>
      <ul>
        ${v.scopes.map((s) => html`<li>${SCOPE_TEXT[s] ? t[SCOPE_TEXT[s]] : s} <small>(${s})</small></li>`)}
        ${v.resources.map((r) => html`<li>${fill(t.useResource, { resource: r.resource })}${r.scopes.length ? html`: ${r.scopes.join(' ')}` : ''}</li>`)}
      </ul>
      ${
        policy || tos
          ? html`<p class="links">
              ${policy ? html`<a href="${policy}" rel="noopener noreferrer">${t.privacyPolicy}</a>` : ''}${
                tos ? html`<a href="${tos}" rel="noopener noreferrer">${t.termsOfService}</a>` : ''
              }
            </p>`
          : ''
      }
      <div class="actions">
        <form method="post" action="${v.action}">
          <input type="hidden" name="csrf" value="${v.csrf}" />
          <button class="primary" type="submit">${t.allow}</button>
        </form>
        <form method="post" action="${v.abort}">
          <input type="hidden" name="csrf" value="${v.csrf}" />
          <button type="submit">${t.cancel}</button>
        </form>
      </div>`,
  };
};
