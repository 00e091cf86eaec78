// SAML: a response posted to the ACS, solicited (RelayState = a state whose AuthnRequest the response answers) or,
// where the connection allows it, unsolicited (IdP-initiated: verified, recorded, then sent to the application).
import type { RequestOrigin } from '../../db/shared/changes.ts';
import { createSsoQueries } from '../../db/sso/queries.ts';
import { SamlRefusal, verifySamlResponse } from '../../lib/sso/saml.ts';
import { samlUpstreamMfa } from '../../lib/sso/upstream-mfa.ts';
import { urlsOf, type SsoConnection, type SsoTarget, type SsoUrls } from './connections.ts';
import { MetadataUnavailable, type IdpMetadataCache } from './idp-metadata-cache.ts';
import { SsoRefusal } from './refusal.ts';
import type { SignInScope } from './record.ts';
import type { SignInSteps, SsoOutcome, SsoServiceDeps } from './steps.ts';
import { samlSettings, trustsEmail } from './upstream.ts';

export function createSamlAcs(deps: SsoServiceDeps, steps: SignInSteps, metadata: IdpMetadataCache) {
  const { pool, connection, providerOf, refuse, finish, cancel, stateOf, baseScope, identityOf } = steps;

  /** The verified assertion; a signature that fails with cached metadata is tried once more with the IdP's current certificate (a key rollover). */
  async function verify(environmentId: string, c: SsoConnection, urls: SsoUrls, requestId: string | null, samlResponse: string) {
    const spDeps = { pool, masterKey: deps.masterKey, metadata };
    const { settings, idp } = await samlSettings(spDeps, environmentId, c, urls, requestId);
    try {
      return await verifySamlResponse(settings, samlResponse);
    } catch (error) {
      if (!(error instanceof SamlRefusal) || error.reason !== 'tampered') throw error;
      const current = await metadata.refetch(c, idp).catch(() => null);
      if (!current) throw error;
      return verifySamlResponse((await samlSettings(spDeps, environmentId, c, urls, requestId, current)).settings, samlResponse);
    }
  }

  /** An IdP-initiated response: verified and its id recorded, then sent to the application (no session is made here). */
  async function unsolicited(scope: SignInScope, c: SsoConnection, replay: (trx: never) => Promise<void>, login: string): Promise<SsoOutcome> {
    if (c.config.allowIdpInitiated !== true)
      return refuse(scope, { reason: 'idp_initiated_refused', message: 'the connection does not accept IdP-initiated sign-in' }, login);
    try {
      await pool.transaction((trx) => replay(trx as never));
    } catch (error) {
      if (error instanceof SsoRefusal) return refuse(scope, error, login);
      throw error;
    }
    const target = typeof c.config.defaultRedirect === 'string' ? c.config.defaultRedirect : null;
    return target ? { redirect: target } : { status: 400, page: 'start_at_app' };
  }

  return async (environmentId: string, target: SsoTarget, body: { SAMLResponse?: string; RelayState?: string }, origin: RequestOrigin): Promise<SsoOutcome> => {
    const provider = await providerOf(environmentId);
    if (!provider) return { status: 404, page: 'not_found' };
    const base = baseScope(provider, environmentId, origin);
    const urls = urlsOf(deps.publicBaseUrl, environmentId, target);
    const known = body.RelayState ? await createSsoQueries(pool, environmentId).findState(body.RelayState) : null;
    // A used state goes on to the checks: a response posted again is refused as a replay.
    const found = known ? await stateOf(environmentId, base, body.RelayState, true) : null;
    if (found && !found.state) return found.outcome;
    const state = found?.state ?? null;
    const scope = found?.scope ?? base;
    const c = await connection(environmentId, state ? { connectionId: state.connectionId } : target);
    if (!c || c.protocol !== 'saml')
      return state ? refuse(scope, { reason: 'state_unknown', message: 'the connection is gone' }) : { status: 404, page: 'not_found' };
    const connScope = { ...scope, connectionId: c.id };
    if (state && urls.acs !== state.returnUrl) return refuse(connScope, { reason: 'state_unknown', message: 'the state belongs to another ACS' });
    if (!body.SAMLResponse) return refuse(connScope, { reason: 'invalid_response', message: 'no SAMLResponse' });
    let assertion;
    try {
      assertion = await verify(environmentId, c, urls, state?.requestId ?? null, body.SAMLResponse);
    } catch (error) {
      // The IdP's metadata URL cannot be read now: nothing the user can fix (the state stays usable until it expires).
      if (error instanceof MetadataUnavailable) return { status: 502, page: 'unavailable', reason: error.message, uiLocales: connScope.uiLocales };
      // The user cancelled (or failed) at the IdP: a solicited sign-in ends with access_denied at the client.
      if (error instanceof SamlRefusal && error.reason === 'upstream_cancelled' && state) return cancel(provider, connScope, state, error.message);
      if (error instanceof SamlRefusal) return refuse(connScope, error);
      throw error;
    }
    if (await createSsoQueries(pool, environmentId).assertionSeen(c.id, assertion.assertionId)) {
      return refuse(connScope, { reason: 'replayed', message: `assertion ${assertion.assertionId} was accepted before` }, assertion.nameId);
    }
    const replay = async (trx: Parameters<typeof createSsoQueries>[0]) => {
      if (!(await createSsoQueries(trx, environmentId).recordAssertion(c.id, assertion.assertionId, assertion.notOnOrAfter))) {
        throw new SsoRefusal('replayed', `assertion ${assertion.assertionId} was accepted before`);
      }
    };
    if (!state) return unsolicited(connScope, c, replay, assertion.nameId);
    const identity = identityOf(c, assertion.nameId, { ...assertion.attributes, nameId: assertion.nameId }, 'saml', trustsEmail(c));
    if (!identity.profile.email && /^[^\s@]+@[^\s@]+$/.test(assertion.nameId)) identity.profile.email = assertion.nameId;
    return finish(provider, connScope, state, identity, { upstreamMfa: samlUpstreamMfa(assertion.authnContextClassRefs), before: replay });
  };
}
