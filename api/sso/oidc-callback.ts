// OIDC and OAuth 2.0: the upstream's redirect back to the callback URL. The state (single use) names the round
// trip; openid-client exchanges the code (PKCE) and validates the ID token; the user is resolved and signed in (or
// continues to the second factor). An `access_denied` (the user cancelled upstream) ends the client's request so.
import type { RequestOrigin } from '../../db/shared/changes.ts';
import { finishUpstream, UpstreamRefusal } from '../../lib/sso/upstream-oidc.ts';
import { urlsOf, type SsoTarget } from './connections.ts';
import type { SignInSteps, SsoOutcome, SsoServiceDeps } from './steps.ts';
import { upstreamApp } from './upstream.ts';

export function createOidcCallback(deps: SsoServiceDeps, steps: SignInSteps) {
  const { connection, providerOf, refuse, finish, cancel, stateOf, baseScope, identityOf } = steps;
  const upstream = { allowPrivate: deps.allowPrivateNetworkTargets };
  return async (environmentId: string, target: SsoTarget, query: URLSearchParams, origin: RequestOrigin): Promise<SsoOutcome> => {
    const provider = await providerOf(environmentId);
    if (!provider) return { status: 404, page: 'not_found' };
    const found = await stateOf(environmentId, baseScope(provider, environmentId, origin), query.get('state') ?? undefined);
    if (!found.state) return found.outcome;
    const { state, scope } = found;
    const c = await connection(environmentId, { connectionId: state.connectionId });
    if (!c || c.protocol === 'saml' || urlsOf(deps.publicBaseUrl, environmentId, target).callback !== state.returnUrl) {
      return refuse(scope, { reason: 'state_unknown', message: 'the state belongs to another connection or URL' });
    }
    // The user cancelled upstream: the client hears access_denied. Other upstream errors keep the refusal page.
    if (query.get('error') === 'access_denied') {
      const description = query.get('error_description');
      return cancel(provider, scope, state, `the upstream answered access_denied${description ? `: ${description}` : ''}`);
    }
    const callbackUrl = new URL(state.returnUrl);
    callbackUrl.search = query.toString();
    try {
      const user = await finishUpstream(
        upstreamApp(c),
        { redirectUri: state.returnUrl, state: state.id, nonce: state.nonce ?? '', codeVerifier: state.codeVerifier ?? '' },
        callbackUrl,
        upstream,
      );
      return await finish(provider, scope, state, identityOf(c, user.subject, user.claims, 'oidc', user.emailVerified), { upstreamMfa: user.mfa });
    } catch (error) {
      if (error instanceof UpstreamRefusal) return refuse(scope, error);
      throw error;
    }
  };
}
