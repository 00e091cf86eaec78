// Sign-in at an upstream OpenID provider (Google, Microsoft, any OIDC issuer) or GitHub (OAuth 2.0) with
// openid-client: discovery, code + PKCE S256, state and nonce, the ID token validated (iss, aud, exp, nonce and its
// signature by the upstream JWKS), then userinfo. Every request goes through the SSRF guard.
import * as client from 'openid-client';
import { guardedFetch, type GuardedFetch } from '../outbound/guarded-fetch.ts';
import type { LookupFn } from '../outbound/ssrf-guard.ts';
import { fetchGithubUser } from './github.ts';
import { oidcUpstreamMfa } from './upstream-mfa.ts';

export interface UpstreamApp {
  providerId: 'google' | 'microsoft' | 'oidc' | 'github';
  issuer?: string;
  tenant?: string;
  clientId: string;
  clientSecret: string;
  scopes?: string[];
}

export interface UpstreamOptions {
  allowPrivate: boolean;
  lookup?: LookupFn;
}

export interface RoundTrip {
  redirectUri: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface UpstreamUser {
  subject: string;
  claims: Record<string, unknown>;
  /** The upstream says the email is the user's (OIDC `email_verified: true`, GitHub's verified primary). */
  emailVerified: boolean;
  /** The ID token says the upstream's authentication was multi-factor (./upstream-mfa.ts); never for GitHub. */
  mfa: boolean;
}

export type UpstreamFailure = 'upstream_error' | 'state_unknown' | 'expired' | 'invalid_response';

export class UpstreamRefusal extends Error {
  readonly reason: UpstreamFailure;
  constructor(reason: UpstreamFailure, message: string) {
    super(message);
    this.reason = reason;
  }
}

const TIMEOUT_SECONDS = 10;
const GITHUB = {
  issuer: 'https://github.com',
  authorization_endpoint: 'https://github.com/login/oauth/authorize',
  token_endpoint: 'https://github.com/login/oauth/access_token',
};

/** The issuer a preset signs in at; a Microsoft connection without a tenant is multi-tenant (`common`). */
export function issuerOf(app: UpstreamApp): string {
  if (app.providerId === 'google') return 'https://accounts.google.com';
  if (app.providerId === 'microsoft') return `https://login.microsoftonline.com/${app.tenant ?? 'common'}/v2.0`;
  if (app.providerId === 'oidc' && app.issuer) return app.issuer;
  return GITHUB.issuer;
}

async function configurationOf(app: UpstreamApp, fetch: GuardedFetch, options: UpstreamOptions) {
  const customFetch = ((url: string, init: RequestInit) => fetch(url, init)) as client.CustomFetch;
  if (app.providerId === 'github') {
    const config = new client.Configuration(GITHUB, app.clientId, { client_secret: app.clientSecret }, client.ClientSecretPost(app.clientSecret));
    config[client.customFetch] = customFetch;
    config.timeout = TIMEOUT_SECONDS;
    return config;
  }
  const issuer = new URL(issuerOf(app));
  return client.discovery(issuer, app.clientId, { client_secret: app.clientSecret }, client.ClientSecretBasic(app.clientSecret), {
    [client.customFetch]: customFetch,
    timeout: TIMEOUT_SECONDS,
    execute: [...(options.allowPrivate && issuer.protocol === 'http:' ? [client.allowInsecureRequests] : []), client.enableNonRepudiationChecks],
  });
}

async function withFetch<T>(options: UpstreamOptions, run: (fetch: GuardedFetch) => Promise<T>): Promise<T> {
  const fetch = guardedFetch({ allowPrivate: options.allowPrivate, lookup: options.lookup });
  try {
    return await run(fetch);
  } finally {
    await fetch.close();
  }
}

const scopesOf = (app: UpstreamApp) =>
  app.scopes?.length ? app.scopes : app.providerId === 'github' ? ['read:user', 'user:email'] : ['openid', 'email', 'profile'];

/** A new round trip's secrets: state, nonce and PKCE verifier. */
export const newRoundTrip = (redirectUri: string): RoundTrip => ({
  redirectUri,
  state: client.randomState(),
  nonce: client.randomNonce(),
  codeVerifier: client.randomPKCECodeVerifier(),
});

/** The upstream authorization URL of a round trip. */
export const authorizationUrl = (app: UpstreamApp, trip: RoundTrip, options: UpstreamOptions) =>
  withFetch(options, async (fetch) => {
    const config = await configurationOf(app, fetch, options);
    return client.buildAuthorizationUrl(config, {
      redirect_uri: trip.redirectUri,
      scope: scopesOf(app).join(' '),
      state: trip.state,
      ...(app.providerId === 'github' ? {} : { nonce: trip.nonce }),
      code_challenge: await client.calculatePKCECodeChallenge(trip.codeVerifier),
      code_challenge_method: 'S256',
    }).href;
  });

function refusalOf(error: unknown): UpstreamRefusal {
  if (error instanceof UpstreamRefusal) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof client.AuthorizationResponseError || error instanceof client.ResponseBodyError) return new UpstreamRefusal('upstream_error', message);
  if (/"state"/.test(message)) return new UpstreamRefusal('state_unknown', message);
  if (/"exp"|expired/i.test(message)) return new UpstreamRefusal('expired', message);
  return new UpstreamRefusal('invalid_response', message);
}

/** The verified user of the upstream's answer at `callbackUrl` (the redirect URI with its query). */
export async function finishUpstream(app: UpstreamApp, trip: RoundTrip, callbackUrl: URL, options: UpstreamOptions): Promise<UpstreamUser> {
  try {
    return await withFetch(options, async (fetch) => {
      const config = await configurationOf(app, fetch, options);
      const checks = { pkceCodeVerifier: trip.codeVerifier, expectedState: trip.state };
      if (app.providerId === 'github') {
        const tokens = await client.authorizationCodeGrant(config, callbackUrl, checks);
        return { ...(await fetchGithubUser(fetch, tokens.access_token)), mfa: false };
      }
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, { ...checks, expectedNonce: trip.nonce, idTokenExpected: true });
      const idToken = tokens.claims()!;
      const userinfo = config.serverMetadata().userinfo_endpoint ? await client.fetchUserInfo(config, tokens.access_token, idToken.sub) : {};
      const claims = { ...userinfo, ...idToken } as Record<string, unknown>;
      const emailVerified = claims.email_verified === true || claims.email_verified === 'true';
      return { subject: idToken.sub, claims, emailVerified, mfa: oidcUpstreamMfa(idToken as Record<string, unknown>) };
    });
  } catch (error) {
    throw refusalOf(error);
  }
}
