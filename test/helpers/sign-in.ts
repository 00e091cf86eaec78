// Sign-in through the environment's real pages, over HTTP with a cookie jar, as a browser without JavaScript would:
// authorize → 303 to the interaction → GET the identifier page → POST the identifier (with the CSRF token) → the
// password page → POST the password → consent page → POST allow → … → the redirect to the client with its code.
// For tests of anything behind a sign-in.
import * as client from 'openid-client';
import { expect } from 'vitest';
import { CookieJar, REDIRECT_URI, type OidcTestApp } from './oidc.ts';

export interface PageSignIn {
  userName: string;
  password: string;
  remember?: boolean;
  /** Allow on the consent page (default), or cancel there. */
  consent?: 'allow' | 'cancel';
}

export interface PageVisit {
  url: string;
  status: number;
  body: string;
  /** login: the identifier page; password: the page after it, with the password form. */
  kind: 'login' | 'password' | 'consent' | 'other';
  headers: Headers;
}

/** The value of a hidden or text input of a page. */
export const inputValue = (body: string, name: string) => new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(body)?.[1];
/** The action of the form whose button says `label`. */
const formAction = (body: string, label: string) => {
  for (const form of body.matchAll(/<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/g)) {
    if (form[2]!.includes(`>${label}</button>`)) return form[1]!.replace(/&amp;/g, '&');
  }
  throw new Error(`no form with a "${label}" button in ${body}`);
};
/** Which sign-in page `body` is, by its forms (so in any locale). */
export const pageKind = (body: string): PageVisit['kind'] =>
  /<input id="identifier" name="identifier"/.test(body)
    ? 'login'
    : /<input id="password" name="password" type="password" autocomplete="current-password"/.test(body)
      ? 'password'
      : /action="[^"]*\/confirm"/.test(body)
        ? 'consent'
        : 'other';

/** POSTs a page's form, form-encoded. */
export const postForm = (jar: CookieJar, url: string, fields: Record<string, string>) =>
  jar.fetch(url, { method: 'POST', body: new URLSearchParams(fields), headers: { 'content-type': 'application/x-www-form-urlencoded' } });

/**
 * Follows the authorization request `url` through the sign-in pages to the redirect back to the client, filling the
 * login form with `signIn` and answering the consent page. Returns the callback URL (with `code` or `error`) and
 * every page seen on the way.
 */
export async function signInThroughPages(url: URL | string, signIn: PageSignIn, jar = new CookieJar()) {
  const pages: PageVisit[] = [];
  let response = await jar.fetch(String(url));
  let at = String(url);
  for (let hops = 0; hops < 20; hops++) {
    const location = response.headers.get('location');
    if (location) {
      const target = new URL(location, at);
      if (!target.pathname.startsWith('/v1/oidc/')) return { callback: target, jar, pages };
      at = target.href;
      response = await jar.fetch(at);
      continue;
    }
    const body = await response.text();
    const visit: PageVisit = { url: at, status: response.status, body, kind: pageKind(body), headers: response.headers };
    pages.push(visit);
    const csrf = inputValue(body, 'csrf') ?? '';
    if (visit.kind === 'login') {
      if (pages.filter((p) => p.kind === 'login').length > 1) throw new Error(`sign-in refused: ${body}`);
      response = await postForm(jar, new URL(formAction(body, 'Continue'), at).href, { csrf, identifier: signIn.userName });
    } else if (visit.kind === 'password') {
      if (pages.filter((p) => p.kind === 'password').length > 1) throw new Error(`sign-in refused: ${body}`);
      const fields = { csrf, identifier: signIn.userName, password: signIn.password, ...(signIn.remember ? { remember: 'yes' } : {}) };
      response = await postForm(jar, new URL(formAction(body, 'Sign in'), at).href, fields);
    } else if (visit.kind === 'consent') {
      response = await postForm(jar, new URL(formAction(body, signIn.consent === 'cancel' ? 'Cancel' : 'Allow'), at).href, { csrf });
    } else {
      throw new Error(`unexpected page ${response.status} at ${at}: ${body}`);
    }
  }
  throw new Error('too many redirects');
}

/** A full code + PKCE flow through the pages and the token exchange with openid-client. */
export async function codeFlowThroughPages(
  config: client.Configuration,
  signIn: PageSignIn,
  parameters: Record<string, string> = {},
  jar = new CookieJar(),
  redirectUri = REDIRECT_URI,
) {
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid profile email',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    ...parameters,
  });
  const { callback, pages } = await signInThroughPages(url, signIn, jar);
  expect(callback.searchParams.get('error'), callback.href).toBeNull();
  const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: codeVerifier, expectedState: state, expectedNonce: nonce });
  return { tokens, jar, pages, callback };
}

/** Sets a directory user's password through the directory API. */
export async function setPassword(t: OidcTestApp, token: string, tenantId: string, environmentId: string, userId: string, password: string) {
  const res = await t.app.inject({
    method: 'PUT',
    url: `/v1/tenants/${tenantId}/environments/${environmentId}/directory/users/${userId}/password`,
    headers: { authorization: `Bearer ${token}` },
    payload: { password },
  });
  expect(res.statusCode, res.body).toBe(204);
}
