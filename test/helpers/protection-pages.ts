// The sign-in pages as the protection tests drive them: an environment with a public client, an interaction at its
// identifier page, and the login and reset forms posted with chosen headers (a browser's by default) from a chosen
// client address (X-Forwarded-For: the app runs with TRUST_PROXY=true).
import * as client from 'openid-client';
import { expect } from 'vitest';
import { bearer } from './app.ts';
import { tenantEvents } from './events.ts';
import { CookieJar, oidcEnvironment, REDIRECT_URI, relyingParty, type OidcTestApp } from './oidc.ts';
import { inputValue } from './sign-in.ts';
import { snapshotOf } from '../../api/oidc/providers.ts';
import type { ProviderSnapshot } from '../../db/oidc/provider/snapshot.ts';

export const BROWSER = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'accept-language': 'en-GB,en;q=0.9',
};

export async function protectedEnvironment(t: OidcTestApp, token: string) {
  const env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  const rp = await relyingParty(env.issuer, env.clientId, null);
  const base = `/v1/tenants/${env.tenantId}/environments/${env.environmentId}`;
  /** Saves a setting or add-on and waits until the pages' Provider snapshot has it (`ready`). */
  const put = async (path: string, payload: object, ready: (s: ProviderSnapshot) => boolean) => {
    const res = await t.app.inject({ method: 'PUT', url: `${base}/${path}`, headers: bearer(token), payload });
    expect(res.statusCode, res.body).toBe(200);
    await expect.poll(async () => ready(snapshotOf(await t.app.oidc.get(env.environmentId))), { timeout: 10_000 }).toBe(true);
    return res.json();
  };
  /** A new interaction at its identifier page: its URL and CSRF token. */
  const interaction = async () => {
    const jar = new CookieJar();
    const url = client.buildAuthorizationUrl(rp, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const at = new URL((await jar.fetch(url)).headers.get('location')!, url).href;
    const csrf = inputValue(await (await jar.fetch(at)).text(), 'csrf')!;
    return { jar, at, csrf };
  };
  const post = async (
    i: Awaited<ReturnType<typeof interaction>>,
    step: 'login' | 'reset' | 'sign-up',
    fields: Record<string, string>,
    headers: Record<string, string | undefined> = {},
  ) => {
    const merged = Object.fromEntries(Object.entries({ ...BROWSER, ...headers }).filter((e): e is [string, string] => e[1] !== undefined));
    const res = await i.jar.fetch(`${i.at}/${step}`, {
      method: 'POST',
      body: new URLSearchParams({ csrf: i.csrf, ...fields }),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...merged },
    });
    return { status: res.status, headers: res.headers, body: await res.text() };
  };
  const events = async (type: string) => (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type === type);
  const threats = async () =>
    (await t.app.inject({ method: 'GET', url: `${base}/threats`, headers: bearer(token) })).json().threats as Record<string, unknown>[];
  return { ...env, base, put, interaction, post, events, threats };
}

export type ProtectedEnvironment = Awaited<ReturnType<typeof protectedEnvironment>>;
