// "Test connection": the portal signs in at the environment's own hosted sign-in as a relying party (a confidential
// OIDC client the portal registers through the OIDC clients service, once per environment), where the admin picks
// the connection and signs in at the IdP; the portal's callback checks the ID token (openid-client, through
// lib/sso/upstream-oidc.ts) and says who signed in. Nothing else changes: the user the sign-in resolved is the
// environment's, as in any sign-in.
import { decrypt, encrypt } from '../../../../../lib/crypto.ts';
import { authorizationUrl, finishUpstream, newRoundTrip, type UpstreamApp } from '../../../../../lib/sso/upstream-oidc.ts';
import { createPortalSessionQueries, createPortalTestClientQueries } from '../../../../../db/organizations/admin-portal/sessions.ts';
import { ApiError, invalidField } from '../../../../errors.ts';
import { record } from '../../../../access/caller.ts';
import { html } from '../../../../oidc/pages/html.ts';
import { inEnvironment } from '../caller.ts';
import { errorBox, okBox } from '../portal-page.ts';
import type { PortalContext } from './intent.ts';

export const TEST_CALLBACK_PATH = '/portal/sso/test/callback';

const callbackOf = (ctx: PortalContext) => `${ctx.publicBaseUrl}${TEST_CALLBACK_PATH}`;

/** The environment's test client, registered when missing (or deleted since). */
export async function ensureTestClient(ctx: PortalContext): Promise<{ clientId: string; clientSecret: string }> {
  const caller = inEnvironment(ctx.caller);
  const stored = createPortalTestClientQueries(ctx.pool, caller.scope.environmentId);
  const found = await stored.find();
  if (found) {
    const exists = await ctx.services.oidcClients.find(caller, found.clientId).then(
      () => true,
      (error: unknown) => (error instanceof ApiError && error.statusCode === 404 ? false : Promise.reject(error)),
    );
    if (exists) return { clientId: found.clientId, clientSecret: decrypt(ctx.masterKey, found.secretEncrypted) };
  }
  const { client, clientSecret } = await ctx.services.oidcClients.register(caller, {
    clientName: 'Admin Portal connection test',
    description: 'Signs in once to test an SSO connection set up in the Admin Portal.',
    redirectUris: [callbackOf(ctx)],
    grantTypes: ['authorization_code'],
    scopes: ['openid', 'email', 'profile'],
    tokenEndpointAuthMethod: 'client_secret_basic',
  });
  if (!clientSecret) throw new Error('the test client has no secret');
  await stored.save(caller.scope.tenant.id, client.clientId, encrypt(ctx.masterKey, clientSecret));
  return { clientId: client.clientId, clientSecret };
}

const appOf = (ctx: PortalContext, client: { clientId: string; clientSecret: string }): UpstreamApp => ({
  providerId: 'oidc',
  issuer: `${ctx.publicBaseUrl}/v1/oidc/${ctx.session.environmentId}`,
  clientId: client.clientId,
  clientSecret: client.clientSecret,
  scopes: ['openid', 'email', 'profile'],
});

/** The hosted sign-in's authorization URL of a new test; its round trip is kept in the session. */
export async function startConnectionTest(ctx: PortalContext, connectionId: string) {
  const { connections } = await ctx.services.connections.list(inEnvironment(ctx.caller));
  if (!connections.some((c) => c.id === connectionId)) throw invalidField('connectionId', 'is not a connection of this environment');
  const client = await ensureTestClient(ctx);
  const trip = newRoundTrip(callbackOf(ctx));
  const url = await authorizationUrl(appOf(ctx, client), trip, { allowPrivate: ctx.allowPrivateNetworkTargets });
  await createPortalSessionQueries(ctx.pool).saveSsoTest(ctx.session.id, { ...trip, connectionId });
  return url;
}

/** The callback of a test: the notice to show, after recording its outcome. */
export async function finishConnectionTest(ctx: PortalContext, callbackUrl: URL) {
  const trip = ctx.session.ssoTest;
  if (!trip?.state) return errorBox('No connection test is under way: start one with its "Test connection" button.');
  const connectionId = trip.connectionId ?? null;
  let outcome: { succeeded: true; subject: string } | { succeeded: false; reason: string };
  try {
    const client = await ensureTestClient(ctx);
    const roundTrip = { redirectUri: trip.redirectUri ?? callbackOf(ctx), state: trip.state, nonce: trip.nonce ?? '', codeVerifier: trip.codeVerifier ?? '' };
    const user = await finishUpstream(appOf(ctx, client), roundTrip, callbackUrl, { allowPrivate: ctx.allowPrivateNetworkTargets });
    const email = typeof user.claims.email === 'string' ? user.claims.email : null;
    outcome = { succeeded: true, subject: email ?? user.subject };
  } catch (error) {
    outcome = { succeeded: false, reason: error instanceof Error ? error.message : String(error) };
  }
  await ctx.pool.transaction(async (trx) => {
    await createPortalSessionQueries(trx).saveSsoTest(ctx.session.id, null);
    await record(trx, ctx.caller, {
      action: 'portal_session.test_connection',
      resource: { type: 'environment_connection', id: connectionId },
      after: { succeeded: outcome.succeeded },
      event: {
        type: 'portal_session.connection_tested',
        data: {
          sessionId: ctx.session.id,
          succeeded: outcome.succeeded,
          connectionId,
          subject: outcome.succeeded ? outcome.subject : null,
          reason: outcome.succeeded ? null : outcome.reason,
        },
      },
    });
  });
  return outcome.succeeded
    ? okBox(html`<p>The connection works: signed in as <strong>${outcome.subject}</strong>.</p>`)
    : errorBox(`The test sign-in did not finish: ${outcome.reason}`);
}
