// Enterprise SSO and social sign-in inside an oidc-provider interaction. `start` sends the browser upstream with a
// single-use state (10 minutes); `callback` (OIDC, OAuth 2.0: ./oidc-callback.ts) and `acs` (SAML: ./saml-acs.ts)
// verify the answer, resolve the directory user (./resolve-user.ts) and finish the interaction with `login` (amr
// `fed`), answering the provider's resume URL. A refusal changes nothing but its audit entry and
// `user.sign_in_failed` event.
import { createSsoQueries } from '../../db/sso/queries.ts';
import { authorizationUrl, newRoundTrip } from '../../lib/sso/upstream-oidc.ts';
import { authnRequestUrl, newRequestId } from '../../lib/sso/saml.ts';
import { spMetadataXml } from '../families/projects/environment-settings/sso-metadata.ts';
import { urlsOf, type SsoTarget } from './connections.ts';
import { createOidcCallback } from './oidc-callback.ts';
import { createSamlAcs } from './saml-acs.ts';
import { spKeyOf } from './sp-keys.ts';
import { createIdpMetadataCache } from './idp-metadata-cache.ts';
import { createSignInSteps, type SsoOutcome, type SsoServiceDeps } from './steps.ts';
import { samlSettings, upstreamApp } from './upstream.ts';

export type { SsoOutcome, SsoServiceDeps } from './steps.ts';

export function createSsoService(deps: SsoServiceDeps) {
  const { pool } = deps;
  const upstream = { allowPrivate: deps.allowPrivateNetworkTargets };
  const steps = createSignInSteps(deps);
  const metadata = createIdpMetadataCache({ allowPrivate: deps.allowPrivateNetworkTargets });
  const { connection, providerOf } = steps;

  return {
    /** The SP metadata at the entity id URL of `target`: SAML only, a connection route only for an active SAML connection. */
    spMetadata: async (environmentId: string, target: SsoTarget): Promise<string | null> => {
      if (!(await providerOf(environmentId))) return null;
      if ('providerId' in target ? target.providerId !== 'saml' : (await connection(environmentId, target))?.protocol !== 'saml') return null;
      const urls = urlsOf(deps.publicBaseUrl, environmentId, target);
      return spMetadataXml(urls.entityId, urls.acs, (await spKeyOf(pool, deps.masterKey, environmentId)).certificatePem);
    },

    /** The login URL: sign-in starts at an application, so only a connection's `defaultRedirect` goes on. */
    login: async (environmentId: string, target: SsoTarget): Promise<SsoOutcome> => {
      const c = await connection(environmentId, target);
      if (!c) return { status: 404, page: 'not_found' };
      return typeof c.config.defaultRedirect === 'string' ? { redirect: c.config.defaultRedirect } : { status: 400, page: 'start_at_app' };
    },

    /** Sends the interaction `uid` upstream through `connectionId`: the upstream's URL, or a page. */
    start: async (environmentId: string, uid: string, connectionId: string): Promise<SsoOutcome> => {
      const c = await connection(environmentId, { connectionId });
      if (!c) return { status: 404, page: 'not_found' };
      const sso = createSsoQueries(pool, environmentId);
      await sso.purgeExpired();
      try {
        if (c.protocol === 'saml') {
          const requestId = newRequestId();
          const stateId = newRoundTrip(c.urls.acs).state;
          const { settings } = await samlSettings({ pool, masterKey: deps.masterKey, metadata }, environmentId, c, c.urls, requestId);
          const url = await authnRequestUrl(settings, stateId);
          await sso.insertState({ id: stateId, connectionId: c.id, interactionUid: uid, returnUrl: c.urls.acs, requestId });
          return { redirect: url };
        }
        const trip = newRoundTrip(c.urls.callback);
        const url = await authorizationUrl(upstreamApp(c), trip, upstream);
        await sso.insertState({
          id: trip.state,
          connectionId: c.id,
          interactionUid: uid,
          returnUrl: c.urls.callback,
          codeVerifier: trip.codeVerifier,
          nonce: trip.nonce,
        });
        return { redirect: url };
      } catch (error) {
        // The upstream's discovery or metadata could not be read: nothing the user can fix.
        return { status: 502, page: 'unavailable', reason: (error as Error).message };
      }
    },

    /** OIDC and OAuth 2.0: the upstream's redirect back, `query` its query string. */
    callback: createOidcCallback(deps, steps),

    /** SAML: a response posted to the ACS. */
    acs: createSamlAcs(deps, steps, metadata),
  };
}

export type SsoService = ReturnType<typeof createSsoService>;
