// The consent page: what the client asks for, and allow or cancel.
import { html } from './html.ts';
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

const SCOPE_TEXT: Record<string, string> = {
  openid: 'Know who you are',
  profile: 'See your name and profile',
  email: 'See your email address',
  phone: 'See your phone number',
  address: 'See your address',
  offline_access: 'Stay connected when you are not using it',
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

export const consentPage = (v: ConsentView): Page => {
  const logo = logoUrl(v.client.logoUri);
  const home = safeUrl(v.client.clientUri);
  const policy = safeUrl(v.client.policyUri);
  const tos = safeUrl(v.client.tosUri);
  return {
    title: 'Allow access',
    imageUrl: logo,
    body: html`<div class="client">
        ${logo ? html`<img src="${logo}" alt="" />` : ''}
        <p>
          <strong>${home ? html`<a href="${home}" rel="noopener noreferrer">${v.client.name}</a>` : v.client.name}</strong> wants to access your account
          <strong>${v.userName}</strong>.
        </p>
      </div>
      <p>It asks to:</p>
      <ul>
        ${v.scopes.map((s) => html`<li>${SCOPE_TEXT[s] ?? s} <small>(${s})</small></li>`)}
        ${v.resources.map((r) => html`<li>Use ${r.resource}${r.scopes.length ? html`: ${r.scopes.join(' ')}` : ''}</li>`)}
      </ul>
      ${
        policy || tos
          ? html`<p class="links">
              ${policy ? html`<a href="${policy}" rel="noopener noreferrer">Privacy policy</a>` : ''}${tos ? html`<a href="${tos}" rel="noopener noreferrer">Terms of service</a>` : ''}
            </p>`
          : ''
      }
      <div class="actions">
        <form method="post" action="${v.action}">
          <input type="hidden" name="csrf" value="${v.csrf}" />
          <button type="submit">Allow</button>
        </form>
        <form method="post" action="${v.abort}">
          <input type="hidden" name="csrf" value="${v.csrf}" />
          <button type="submit">Cancel</button>
        </form>
      </div>`,
  };
};
