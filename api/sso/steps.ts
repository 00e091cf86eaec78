// The steps every SSO answer shares: finding the connection and the state, refusing (an audit entry and a
// `user.sign_in_failed` event, nothing else), and finishing the interaction once the user is resolved.
import type { DatabasePool } from 'slonik';
import type Provider from 'oidc-provider';
import type { OidcProviders } from '../oidc/types.ts';
import { issuerOf, snapshotOf } from '../oidc/providers.ts';
import { ACR_MFA } from '../oidc/acr.ts';
import type { RequestOrigin } from '../../db/shared/changes.ts';
import { createSsoQueries } from '../../db/sso/queries.ts';
import type { SsoState } from '../../db/sso/rows.ts';
import { mapProfile } from '../../lib/sso/mapping.ts';
import { findSsoConnection, type SsoConnection, type SsoTarget } from './connections.ts';
import { SsoRefusal } from './refusal.ts';
import { refuseOtherRealm } from './home-realm-guard.ts';
import { recordRefusal, recordSignedIn, SSO_MFA_AMR, type SignInScope } from './record.ts';
import { resolveUser, type UpstreamIdentity } from './resolve-user.ts';
import { mappingOf, provisioningOf } from './upstream.ts';

export interface SsoServiceDeps {
  pool: DatabasePool;
  oidc: OidcProviders;
  masterKey: Buffer;
  publicBaseUrl: string;
  allowPrivateNetworkTargets: boolean;
}

/** What a route answers: a redirect (303), or a page saying why not. */
export type SsoOutcome =
  | { redirect: string }
  | {
      status: number;
      page: 'expired' | 'refused' | 'not_found' | 'unavailable' | 'start_at_app';
      reason?: string;
      /** The interaction's ui_locales, when the answer belongs to a known interaction: the page's locale. */
      uiLocales?: unknown;
    };

type Trx = Parameters<Parameters<DatabasePool['transaction']>[0]>[0];

const refused = (reason: string) => ({ status: 400, page: 'refused' as const, reason });

export function createSignInSteps(deps: SsoServiceDeps) {
  const { pool } = deps;
  const connection = (environmentId: string, target: SsoTarget) => findSsoConnection(pool, deps.masterKey, deps.publicBaseUrl, environmentId, target);
  const providerOf = (environmentId: string) => deps.oidc.get(environmentId).catch(() => null);

  /** Records the refusal (its own transaction) and says so. */
  async function refuse(scope: SignInScope, error: { reason: SsoRefusal['reason']; message: string; userId?: string | null }, login = '') {
    await pool.transaction((trx) => recordRefusal(trx, scope, { reason: error.reason, message: error.message, userId: error.userId ?? null }, login));
    return { ...refused(error.reason), uiLocales: scope.uiLocales };
  }

  /**
   * The sign-in's end: in one transaction the state is consumed and the user resolved. An upstream that did MFA
   * finishes the interaction here (`user.signed_in` recorded, amr `fed`+`mfa`, acr mfa); otherwise the user waits on
   * the state for the interaction's continuation (../families/oidc/sso/continue-routes.ts), which applies the second
   * factor where the interaction cookie is sent.
   */
  async function finish(
    provider: Provider,
    scope: SignInScope,
    state: SsoState,
    identity: UpstreamIdentity,
    options: { upstreamMfa: boolean; before?: (trx: Trx) => Promise<void> },
  ): Promise<SsoOutcome> {
    const interaction = await provider.Interaction.find(state.interactionUid);
    if (!interaction || interaction.prompt.name !== 'login')
      return refuse(scope, { reason: 'expired', message: 'the sign-in interaction ended' }, identity.subject);
    const sso = (db: Parameters<typeof createSsoQueries>[0]) => createSsoQueries(db, scope.environmentId);
    let userId: string;
    try {
      userId = await pool.transaction(async (trx) => {
        await options.before?.(trx);
        if (!(await sso(trx).consumeState(state.id))) throw new SsoRefusal('state_consumed', 'the state was used already or expired');
        await refuseOtherRealm(trx, scope.environmentId, identity);
        const id = await resolveUser(trx, scope, identity);
        if (options.upstreamMfa) await recordSignedIn(trx, scope, id, SSO_MFA_AMR);
        else await sso(trx).resolveState(state.id, id);
        return id;
      });
    } catch (error) {
      if (error instanceof SsoRefusal) return refuse(scope, error, identity.profile.email ?? identity.subject);
      throw error;
    }
    if (!options.upstreamMfa) return { redirect: `${issuerOf(deps.publicBaseUrl, scope.environmentId)}/interaction/${state.interactionUid}/sso/continue` };
    interaction.result = { ...interaction.result, login: { accountId: userId, amr: SSO_MFA_AMR, acr: ACR_MFA, remember: false } };
    await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
    return { redirect: interaction.returnTo };
  }

  /**
   * The user cancelled upstream (OIDC `access_denied`, SAML AuthnFailed/RequestDenied): the state is consumed, the
   * refusal recorded (`upstream_cancelled`) and the interaction ends with `access_denied`, back to the client.
   */
  async function cancel(provider: Provider, scope: SignInScope, state: SsoState, message: string): Promise<SsoOutcome> {
    const interaction = await provider.Interaction.find(state.interactionUid);
    if (!interaction || interaction.prompt.name !== 'login') return refuse(scope, { reason: 'expired', message: 'the sign-in interaction ended' });
    try {
      await pool.transaction(async (trx) => {
        if (!(await createSsoQueries(trx, scope.environmentId).consumeState(state.id)))
          throw new SsoRefusal('state_consumed', 'the state was used already or expired');
        await recordRefusal(trx, scope, { reason: 'upstream_cancelled', message, userId: null });
      });
    } catch (error) {
      if (error instanceof SsoRefusal) return refuse(scope, error);
      throw error;
    }
    interaction.result = { error: 'access_denied', error_description: 'The user cancelled the sign-in at the identity provider.' };
    await interaction.save(interaction.exp - Math.floor(Date.now() / 1000));
    return { redirect: interaction.returnTo };
  }

  /** The state a callback names, refused (with its audit entry) when unknown, used or expired. */
  async function stateOf(environmentId: string, scope: SignInScope, stateId: string | undefined, allowConsumed = false) {
    const state = stateId ? await createSsoQueries(pool, environmentId).findState(stateId) : null;
    if (!state) return { outcome: await refuse(scope, { reason: 'state_unknown', message: 'no such state' }) };
    const interaction = await (await providerOf(environmentId))?.Interaction.find(state.interactionUid);
    const stated = {
      ...scope,
      connectionId: state.connectionId,
      clientId: interaction ? String(interaction.params.client_id) : '',
      uiLocales: interaction?.params.ui_locales,
    };
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

  return { pool, connection, providerOf, refuse, finish, cancel, stateOf, baseScope, identityOf };
}

export type SignInSteps = ReturnType<typeof createSignInSteps>;
