// Signing in to the page: the page is a relying party of its own environment's provider (authorization code with
// PKCE S256, state and nonce, scope `openid`), so the user signs in on the hosted sign-in pages with whatever the
// environment offers (password, passkey, SSO, second factors) and the page never sees a password. The code is
// redeemed at the provider's token endpoint in-process (Fastify `inject`: no network hop, no dependence on
// PUBLIC_BASE_URL being reachable from the server itself); an ID token received straight from the token endpoint
// needs no signature check (OpenID Connect Core 3.1.3.7), and its issuer, audience, nonce and expiry are checked.
import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { App } from '../../../types.ts';
import { accessPageClientId } from './client.ts';
import type { PendingSignIn } from './cookies.ts';

export interface PagePaths {
  /** The environment's issuer as the browser and the ID token name it (PUBLIC_BASE_URL/v1/oidc/{id}). */
  issuer(environmentId: string): string;
  /** The page's public URL (`{issuer}/access`), and below it. */
  page(environmentId: string, below?: string): string;
}

export class SignInFailed extends Error {}

export function createPageSignIn(app: App, paths: PagePaths) {
  const callbackOf = (environmentId: string) => paths.page(environmentId, '/callback');
  return {
    callbackOf,
    /** Where the browser goes to sign in. */
    authorizationUrl: (environmentId: string, pending: PendingSignIn) => {
      const url = new URL(`${paths.issuer(environmentId)}/auth`);
      url.search = new URLSearchParams({
        client_id: accessPageClientId(environmentId),
        redirect_uri: callbackOf(environmentId),
        response_type: 'code',
        scope: 'openid',
        state: pending.state,
        nonce: pending.nonce,
        code_challenge: createHash('sha256').update(pending.verifier).digest('base64url'),
        code_challenge_method: 'S256',
      }).toString();
      return url.href;
    },
    /** Redeems the callback's code; the directory user it signed in (the ID token's `sub`). */
    redeem: async (environmentId: string, code: string, pending: PendingSignIn): Promise<string> => {
      const clientId = accessPageClientId(environmentId);
      const response = await app.inject({
        method: 'POST',
        url: `/v1/oidc/${environmentId}/token`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: callbackOf(environmentId),
          client_id: clientId,
          code_verifier: pending.verifier,
        }).toString(),
      });
      const body = response.json<{ id_token?: string; error?: string; error_description?: string }>();
      if (response.statusCode !== 200 || !body.id_token)
        throw new SignInFailed(`token endpoint: ${body.error ?? response.statusCode} ${body.error_description ?? ''}`);
      const claims = decodeJwt(body.id_token);
      const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
      if (claims.iss !== paths.issuer(environmentId) || !audience.includes(clientId) || claims.nonce !== pending.nonce) {
        throw new SignInFailed('the ID token is not for this sign-in');
      }
      if (typeof claims.exp !== 'number' || claims.exp * 1000 < Date.now() || typeof claims.sub !== 'string') throw new SignInFailed('the ID token is expired');
      return claims.sub;
    },
  };
}

export type PageSignIn = ReturnType<typeof createPageSignIn>;
