// Sign-in with a second factor through the environment's real pages over HTTP (no JavaScript, a cookie jar): the
// authorization request, the identifier and password pages, then whatever comes: the TOTP page, the enrolment page,
// the recovery codes, consent, or the redirect back to the client. Each step is the test's to take.
import * as client from 'openid-client';
import { expect } from 'vitest';
import { CookieJar, REDIRECT_URI } from './oidc.ts';
import { inputValue, pageKind, postForm } from './sign-in.ts';

export type MfaPageKind = 'login' | 'password' | 'consent' | 'mfa' | 'recovery' | 'enrol' | 'codes' | 'other';

export interface Stop {
  /** The redirect back to the client, when the sign-in ended. */
  callback?: URL;
  at: string;
  status: number;
  body: string;
  kind: MfaPageKind;
  csrf: string;
  response: Response;
}

const kindOf = (body: string): MfaPageKind => {
  if (/action="[^"]*\/mfa\/totp"/.test(body)) return 'mfa';
  if (/action="[^"]*\/mfa\/recovery"/.test(body)) return 'recovery';
  if (/action="[^"]*\/mfa\/enrol"/.test(body)) return 'enrol';
  if (/action="[^"]*\/mfa\/done"/.test(body)) return 'codes';
  return pageKind(body);
};

/** Follows redirects from `response` (got at `at`) to the next page, or to the client's redirect_uri. */
export async function follow(jar: CookieJar, response: Response, at: string): Promise<Stop> {
  for (let hops = 0; hops < 20; hops++) {
    const location = response.headers.get('location');
    if (!location) break;
    const target = new URL(location, at);
    if (!target.pathname.startsWith('/v1/oidc/')) return { callback: target, at, status: response.status, body: '', kind: 'other', csrf: '', response };
    at = target.href;
    response = await jar.fetch(at);
  }
  const body = await response.text();
  return { at, status: response.status, body, kind: kindOf(body), csrf: inputValue(body, 'csrf') ?? '', response };
}

/** POSTs `fields` (and the page's CSRF token) to `<interaction>/<step>` and follows to the next stop. */
export async function submit(jar: CookieJar, stop: Stop, step: string, fields: Record<string, string> = {}) {
  const interaction = /^(.*\/interaction\/[^/?]+)/.exec(stop.at)![1]!;
  const url = `${interaction}/${step}`;
  return follow(jar, await postForm(jar, url, { csrf: stop.csrf, ...fields }), url);
}

/** An authorization request (PKCE) to its first page; `exchange` later turns the callback into tokens. */
export async function authorize(rp: client.Configuration, parameters: Record<string, string> = {}, jar = new CookieJar()) {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state,
    ...parameters,
  });
  const stop = await follow(jar, await jar.fetch(url), url.href);
  const exchange = async (callback: URL) => {
    expect(callback.searchParams.get('error'), callback.href).toBeNull();
    const tokens = await client.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: verifier, expectedState: state });
    return tokens.claims()!;
  };
  return { jar, stop, exchange };
}

/** From the identifier page through the password: the stop after the first factor. */
export async function password(jar: CookieJar, stop: Stop, userName: string, secret: string) {
  expect(stop.kind, stop.body).toBe('login');
  const factors = await submit(jar, stop, 'identifier', { identifier: userName });
  expect(factors.kind, factors.body).toBe('password');
  return submit(jar, factors, 'login', { identifier: userName, password: secret });
}

/** Consents when asked, to the redirect back to the client. */
export async function toCallback(jar: CookieJar, stop: Stop): Promise<URL> {
  const next = stop.kind === 'consent' ? await submit(jar, stop, 'confirm') : stop;
  expect(next.callback, `${next.status} ${next.at}: ${next.body}`).toBeDefined();
  return next.callback!;
}
