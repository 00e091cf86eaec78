// Enterprise SSO and social sign-in inside an oidc-provider interaction. `start` sends the browser upstream with a
// single-use state (10 minutes); `callback` (OIDC, OAuth 2.0) and `acs` (SAML) verify the answer, resolve the
// directory user (./resolve-user.ts) and finish the interaction with `login` (amr `fed`), answering the provider's
// resume URL. A refusal changes nothing but its audit entry and `user.sign_in_failed` event.
import type { DatabasePool } from 'slonik';
import type Provider from 'oidc-provider';
import type { OidcProviders } from '../oidc/types.ts';
import { snapshotOf } from '../oidc/providers.ts';
import type { RequestOrigin } from '../../db/shared/changes.ts';
import { createSsoQueries } from '../../db/sso/queries.ts';
import type { SsoState } from '../../db/sso/rows.ts';
import { authorizationUrl, finishUpstream, newRoundTrip, UpstreamRefusal } from '../../lib/sso/upstream-oidc.ts';
import { authnRequestUrl, newRequestId, SamlRefusal, verifySamlResponse } from '../../lib/sso/saml.ts';
import { mapProfile } from '../../lib/sso/mapping.ts';
import { findSsoConnection, urlsOf, type SsoConnection, type SsoTarget } from './connections.ts';
import { SsoRefusal } from './refusal.ts';
import { spKeyOf } from './sp-keys.ts';
import { spMetadataXml } from '../families/projects/environment-settings/sso-metadata.ts';
import { recordRefusal, recordSignedIn, SSO_AMR, type SignInScope } from './record.ts';
import { resolveUser, type UpstreamIdentity } from './resolve-user.ts';
import { mappingOf, provisioningOf, samlSettings, trustsEmail, upstreamApp } from './upstream.ts';

export interface SsoServiceDeps {
  pool: DatabasePool;
  oidc: OidcProviders;
  masterKey: Buffer;
  publicBaseUrl: string;
  allowPrivateNetworkTargets: boolean;
}

/** What a route answers: a redirect (303), or a page saying why not. */
export type SsoOutcome = { redirect: string } | { status: number; page: 'expired' | 'refused' | 'not_found' | 'unavailable' | 'start_at_app'; reason?: string };

const refused = (reason: string): SsoOutcome => ({ status: 400, page: 'refused', reason });

export function createSsoService(deps: SsoServiceDeps) {
  const { pool } = deps;
  const upstream = { allowPrivate: deps.allowPrivateNetworkTargets };
  const connection = (environmentId: string, target: SsoTarget) => findSsoConnection(pool, deps.masterKey, deps.publicBaseUrl, environmentId, target);
  const providerOf = (environmentId: string) => deps.oidc.get(environmentId).catch(() => null);

  /** Records the refusal (its own transaction) and says so. */
  async function refuse(scope: SignInScope, error: { reason: SsoRefusal['reason']; message: string; userId?: string | null }, login = '') {
    await pool.transaction((trx) => recordRefusal(trx, scope, { reason: error.reason, message: error.message, userId: error.userId ?? null }, login));
    return refused(error.reason);
  }

  /** The sign-in's end: in one transaction the state is consumed, the user resolved and the sign-in recorded. */
  async function finish(
    provider: Provider,
    scope: SignInScope,
    state: SsoState,
    identity: UpstreamIdentity,
    before?: (trx: Parameters<Parameters<DatabasePool['transaction']>[0]>[0]) => Promise<void>,
  ) {
    const interaction = await provider.Interaction.find(state.interactionUid);
    if (!interaction || interaction.prompt.name !== 'login')
      return refuse(scope, { reason: 'expired', message: 'the sign-in interaction ended' }, identity.subject);
    const sso = (db: Parameters<typeof createSsoQueries>[0]) => createSsoQueries(db, scope.environmentId);
    let userId: string;
    try {
      userId = await pool.transaction(async (trx) => {
        await before?.(trx);
        if (!(await sso(trx).consumeState(state.id))) throw new SsoRefusal('state_consumed', 'the state was used already or expired');
        const id = await resolveUser(trx, scope, identity);
        await recordSignedIn(trx, scope, id);
        return id;
      });
    } catch (error) {
      if (error instanceof SsoRefusal) return refuse(scope, error, identity.profile.email ?? identity.subject);
      throw error;
    }
    interaction.result = { ...interaction.result, login: { accountId: userId, amr: SSO_AMR, remember: false } };
    await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
    return { redirect: interaction.returnTo };
  }

  /** The state a callback names, refused (with its audit entry) when unknown, used or expired. */
  async function stateOf(environmentId: string, scope: SignInScope, stateId: string | undefined, allowConsumed = false) {
    const state = stateId ? await createSsoQueries(pool, environmentId).findState(stateId) : null;
    if (!state) return { outcome: await refuse(scope, { reason: 'state_unknown', message: 'no such state' }) };
    const interaction = await (await providerOf(environmentId))?.Interaction.find(state.interactionUid);
    const stated = { ...scope, connectionId: state.connectionId, clientId: interaction ? String(interaction.params.client_id) : '' };
    if (state.consumedAt && !allowConsumed) return { outcome: await refuse(stated, { reason: 'state_consumed', message: 'the state was used already' }) };
    if (state.expired) return { outcome: await refuse(stated, { reason: 'expired', message: 'the state expired' }) };
    return { state, scope: stated };
  }

  const baseScope = (provider: Provider, environmentId: string, origin: RequestOrigin): SignInScope => ({
    environmentId,
    tenantId: snapshotOf(provider).tenantId,
    origin,
    clientId: '',
    connectionId: null,
  });

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
          const url = await authnRequestUrl(await samlSettings({ pool, masterKey: deps.masterKey, ...upstream }, environmentId, c, c.urls, requestId), stateId);
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
    callback: async (environmentId: string, target: SsoTarget, query: URLSearchParams, origin: RequestOrigin): Promise<SsoOutcome> => {
      const provider = await providerOf(environmentId);
      if (!provider) return { status: 404, page: 'not_found' };
      const found = await stateOf(environmentId, baseScope(provider, environmentId, origin), query.get('state') ?? undefined);
      if (!found.state) return found.outcome;
      const { state, scope } = found;
      const c = await connection(environmentId, { connectionId: state.connectionId });
      if (!c || c.protocol === 'saml' || urlsOf(deps.publicBaseUrl, environmentId, target).callback !== state.returnUrl) {
        return refuse(scope, { reason: 'state_unknown', message: 'the state belongs to another connection or URL' });
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
        return await finish(provider, scope, state, identityOf(c, user.subject, user.claims, 'oidc', user.emailVerified));
      } catch (error) {
        if (error instanceof UpstreamRefusal) return refuse(scope, error);
        throw error;
      }
    },

    /** SAML: a response posted to the ACS, solicited (RelayState = a state) or, where allowed, unsolicited. */
    acs: async (environmentId: string, target: SsoTarget, body: { SAMLResponse?: string; RelayState?: string }, origin: RequestOrigin): Promise<SsoOutcome> => {
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
        assertion = await verifySamlResponse(
          await samlSettings({ pool, masterKey: deps.masterKey, ...upstream }, environmentId, c, urls, state?.requestId ?? null),
          body.SAMLResponse,
        );
      } catch (error) {
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
      return finish(provider, connScope, state, identity, replay);
    },
  };

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

  function identityOf(c: SsoConnection, subject: string, claims: Record<string, unknown>, protocol: 'oidc' | 'saml', emailTrusted: boolean): UpstreamIdentity {
    const mapping = mappingOf(c);
    return {
      connectionId: c.id,
      providerId: c.providerId,
      subject,
      profile: mapProfile(
        claims,
        protocol,
        c.protocol === 'saml' && typeof c.config.emailAttribute === 'string' ? { email: c.config.emailAttribute, ...mapping } : mapping,
      ),
      emailTrusted,
      claims,
      provisioning: provisioningOf(c),
    };
  }
}

export type SsoService = ReturnType<typeof createSsoService>;
