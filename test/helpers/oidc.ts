// OpenID provider fixtures: an app listening on a real port (relying parties use fetch), environments with OIDC
// clients (inserted with SQL until the clients family lands), directory users, and a code flow driven over HTTP
// whose sign-in is finished through the provider's Interaction model (no login page needed).
import { sql } from 'slonik';
import * as client from 'openid-client';
import { encrypt } from '../../lib/crypto.ts';
import { createUserQueries } from '../../db/identity/users/queries.ts';
import { startTestApp, type TestApp, type TestAppOptions } from './app.ts';
import { newEnvironments } from './fixtures.ts';
import { freePort } from '../../db/embedded.ts';

export interface OidcTestApp extends TestApp {
  baseUrl: string;
  issuer(environmentId: string): string;
}

/**
 * The app on 127.0.0.1 with PUBLIC_BASE_URL its own address, so issuers are reachable as advertised. `host`
 * `localhost` for passkeys (browsers refuse an IP address as the WebAuthn RP id).
 */
export async function startOidcApp(
  env: Record<string, string> = {},
  host: '127.0.0.1' | 'localhost' = '127.0.0.1',
  options: Pick<TestAppOptions, 'passwordPolicy'> = {},
): Promise<OidcTestApp> {
  const port = await freePort();
  const baseUrl = `http://${host}:${port}`;
  const t = await startTestApp({ PUBLIC_BASE_URL: baseUrl, ...env }, options);
  await t.app.listen({ port, host });
  return { ...t, baseUrl, issuer: (environmentId) => `${baseUrl}/v1/oidc/${environmentId}` };
}

export interface OidcClientOptions {
  redirectUris?: string[];
  postLogoutRedirectUris?: string[];
  grantTypes?: string[];
  scopes?: string[];
  tokenEndpointAuthMethod?: 'none' | 'client_secret_basic' | 'client_secret_post';
  pkceRequired?: boolean;
  agentSignIn?: boolean;
  idTokenSignedResponseAlg?: 'ES256' | 'RS256';
  backchannelLogoutUri?: string;
  active?: boolean;
}

export const REDIRECT_URI = 'http://127.0.0.1:9/callback';

/** An OIDC client of the environment; `clientSecret` is null for a public client. */
export async function createOidcClient(t: TestApp, environmentId: string, options: OidcClientOptions = {}) {
  const clientId = `client-${crypto.randomUUID()}`;
  const method = options.tokenEndpointAuthMethod ?? 'client_secret_basic';
  const clientSecret = method === 'none' ? null : `secret-${crypto.randomUUID()}`;
  await t.pool.query(sql.unsafe`
    INSERT INTO oidc_clients (environment_id, client_id, name, redirect_uris, post_logout_redirect_uris, grant_types, scopes,
      token_endpoint_auth_method, pkce_required, agent_sign_in, id_token_signed_response_alg, backchannel_logout_uri, secret_encrypted, active)
    VALUES (${environmentId}, ${clientId}, 'Test app', ${sql.array(options.redirectUris ?? [REDIRECT_URI], 'text')},
      ${sql.array(options.postLogoutRedirectUris ?? [], 'text')},
      ${sql.array(options.grantTypes ?? ['authorization_code', 'refresh_token', 'client_credentials'], 'text')},
      ${sql.array(options.scopes ?? ['openid', 'profile', 'email', 'phone', 'address', 'offline_access'], 'text')}, ${method},
      ${options.pkceRequired ?? true}, ${options.agentSignIn ?? false}, ${options.idTokenSignedResponseAlg ?? 'ES256'},
      ${options.backchannelLogoutUri ?? null}, ${clientSecret ? encrypt(t.masterKey, clientSecret) : null}, ${options.active ?? true})`);
  return { clientId, clientSecret };
}

/** A fresh environment with one confidential client. */
export async function oidcEnvironment(t: OidcTestApp, options: OidcClientOptions = {}) {
  const { tenantId, environmentIds } = await newEnvironments(t);
  const environmentId = environmentIds[0] as string;
  const created = await createOidcClient(t, environmentId, options);
  return { tenantId, environmentId, issuer: t.issuer(environmentId), ...created };
}

/** A directory user of the environment (active, verified email). */
export async function directoryUser(t: TestApp, environmentId: string, email = `u-${crypto.randomUUID().slice(0, 8)}@example.com`) {
  return createUserQueries(t.pool).insertVerifiedUser({ environmentId, userName: email, displayName: `User ${email}`, email, managementScopes: [] });
}

/** openid-client's view of the environment's issuer for a client (plain http allowed: the tests' address). */
export async function relyingParty(issuer: string, clientId: string, clientSecret: string | null, metadata: Partial<client.ClientMetadata> = {}) {
  return client.discovery(
    new URL(issuer),
    clientId,
    { ...(clientSecret ? { client_secret: clientSecret } : {}), ...metadata },
    clientSecret ? client.ClientSecretBasic(clientSecret) : client.None(),
    { execute: [client.allowInsecureRequests] },
  );
}

/** A minimal cookie jar: every cookie the provider sets, sent back on every request (paths ignored). */
export class CookieJar {
  readonly cookies = new Map<string, string>();
  /** Every Set-Cookie line received, attributes included. */
  readonly received: string[] = [];
  store(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      this.received.push(line);
      const [pair = ''] = line.split(';');
      const [name = '', ...value] = pair.split('=');
      if (/expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value.join('='));
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
  async fetch(url: string | URL, init: RequestInit = {}) {
    const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as object), cookie: this.header() } });
    this.store(response);
    return response;
  }
}

/**
 * RP-initiated logout in the browser of `jar`: opens `endSessionUrl` (the provider's logout page) and posts its form,
 * signing the user out (`logout: 'yes'`) or, without it ("No"), leaving the asking client only. Returns the page
 * (its body read into `html`) and the form's answer.
 */
export async function endSession(jar: CookieJar, endSessionUrl: URL, logout?: 'yes') {
  const page = await jar.fetch(endSessionUrl);
  const html = await page.text();
  const action = /action="([^"]+)"/.exec(html)?.[1] as string;
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(html)?.[1] as string;
  const answer = await jar.fetch(action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ xsrf, ...(logout ? { logout } : {}) }).toString(),
  });
  return { page, html, answer };
}

export interface SignIn {
  accountId: string;
  /** Consent to the requested scopes (default true). */
  consent?: boolean;
  amr?: string[];
  remember?: boolean;
}

/**
 * Finishes the pending interaction `uid` as the sign-in pages would (login, then consent to every requested scope),
 * through the provider's own models: tests of the provider need no login page.
 */
export async function finishInteraction(t: TestApp, environmentId: string, uid: string, signIn: SignIn) {
  const provider = await t.app.oidc.get(environmentId);
  const interaction = await provider.Interaction.find(uid);
  if (!interaction) throw new Error(`no interaction ${uid}`);
  const { params, prompt } = interaction;
  const result: Record<string, unknown> = { ...interaction.result };
  if (prompt.name === 'login') {
    result.login = { accountId: signIn.accountId, amr: signIn.amr ?? ['pwd'], remember: signIn.remember ?? true };
  }
  if (signIn.consent !== false) {
    const grant = interaction.grantId
      ? await provider.Grant.find(interaction.grantId)
      : new provider.Grant({ accountId: signIn.accountId, clientId: String(params.client_id) });
    if (!grant) throw new Error('grant vanished');
    if (typeof params.scope === 'string') grant.addOIDCScope(params.scope);
    const resources = params.resource === undefined ? [] : ([] as string[]).concat(params.resource as string | string[]);
    for (const resource of resources) grant.addResourceScope(resource, typeof params.scope === 'string' ? params.scope : '');
    result.consent = { grantId: await grant.save() };
  }
  interaction.result = result;
  await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
  return interaction.returnTo;
}

/**
 * Drives the authorization endpoint until the redirect to the client: every interaction on the way is finished
 * as `signIn` says. Returns the final redirect (the client's callback URL with code or error).
 */
export async function authorize(t: OidcTestApp, environmentId: string, url: URL | string, signIn: SignIn | null, jar = new CookieJar()) {
  let next = String(url);
  for (let hops = 0; hops < 10; hops++) {
    const response = await jar.fetch(next);
    const location = response.headers.get('location');
    if (!location) throw new Error(`no redirect from ${next}: ${response.status} ${await response.text()}`);
    const target = new URL(location, next);
    const interaction = /\/interaction\/([^/?]+)$/.exec(target.pathname);
    if (!interaction) return { callback: target, jar, response };
    if (!signIn) throw new Error('an interaction was required');
    next = await finishInteraction(t, environmentId, interaction[1] as string, signIn);
  }
  throw new Error('too many redirects');
}

/** A full code + PKCE flow for `accountId`: the token response and what the flow used. */
export async function codeFlow(
  t: OidcTestApp,
  config: client.Configuration,
  environmentId: string,
  signIn: SignIn,
  parameters: Record<string, string> = {},
  options: { jar?: CookieJar; par?: boolean; dpop?: client.DPoPHandle; tokenParameters?: Record<string, string> } = {},
) {
  const jar = options.jar ?? new CookieJar();
  const codeVerifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const nonce = client.randomNonce();
  const authorizationParameters = {
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile email offline_access',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    prompt: 'consent',
    ...parameters,
  };
  const url = options.par
    ? await client.buildAuthorizationUrlWithPAR(config, authorizationParameters, { DPoP: options.dpop })
    : client.buildAuthorizationUrl(config, authorizationParameters);
  const { callback } = await authorize(t, environmentId, url, signIn, jar);
  const tokens = await client.authorizationCodeGrant(
    config,
    callback,
    { pkceCodeVerifier: codeVerifier, expectedState: state, expectedNonce: nonce },
    options.tokenParameters,
    { DPoP: options.dpop },
  );
  return { tokens, jar, codeVerifier };
}
