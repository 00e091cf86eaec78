// attemptBackChannelLogout: one attempt of the back-channel-logout process. It re-reads the client (gone, inactive or
// without a logout URI: nothing to do), signs a logout token as oidc-provider does (OpenID Connect Back-Channel
// Logout 1.0: typ logout+jwt, the client's ID token alg, the environment's active key of that alg, two minutes to
// live, a fresh jti) and POSTs it through the SSRF guard with a timeout. A failure that a later attempt may not meet
// (no answer, 408, 429, 5xx) is retried by the process; a refusal or the last failure is recorded with its event.
import { randomUUID } from 'node:crypto';
import { importJWK, SignJWT } from 'jose';
import type { DatabasePool } from 'slonik';
import { createProviderClientQueries } from '../db/oidc/provider/clients.ts';
import { loadKeyRing, providerJwks } from '../db/oidc/keys/ring.ts';
import { recordChange } from '../db/shared/changes.ts';
import { postOutbound } from '../lib/outbound/http-client.ts';
import type { LookupFn } from '../lib/outbound/ssrf-guard.ts';
import type { Activities, BackChannelLogoutAttempt, BackChannelLogoutResult } from '../workflows/activities.ts';

export interface BackChannelLogoutDeps {
  pool: DatabasePool;
  masterKey: Buffer;
  /** ALLOW_PRIVATE_NETWORK_TARGETS: logout URIs on private addresses may be reached. */
  allowPrivate: boolean;
  lookup?: LookupFn;
}

/** How long one attempt waits for the RP's answer (oidc-provider gives its own 2.5 s). */
export const BACK_CHANNEL_LOGOUT_TIMEOUT_MS = 5000;
/** The logout token's lifetime, as oidc-provider issues it. */
const TOKEN_TTL_SECONDS = 120;
const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** Answers a later attempt may not get: no answer at all, or the RP busy or down for now. */
const transient = (statusCode: number | null) => statusCode === null || statusCode === 408 || statusCode === 429 || statusCode >= 500;

async function logoutToken(deps: BackChannelLogoutDeps, input: BackChannelLogoutAttempt, alg: string): Promise<string> {
  const ring = await loadKeyRing(deps.pool, deps.masterKey, input.environmentId);
  // Active keys come first: the provider signs with the first key of an alg too.
  const jwk = providerJwks(ring, deps.masterKey).keys.find((k) => k.alg === alg);
  if (!jwk) throw new Error(`environment ${input.environmentId} has no ${alg} signing key`);
  return new SignJWT({ events: { [EVENT]: {} }, ...(input.sid ? { sid: input.sid } : {}) })
    .setProtectedHeader({ alg, kid: jwk.kid!, typ: 'logout+jwt' })
    .setIssuer(input.issuer)
    .setAudience(input.clientId)
    .setSubject(input.sub)
    .setIssuedAt()
    .setExpirationTime(`${TOKEN_TTL_SECONDS}s`)
    .setJti(randomUUID())
    .sign(await importJWK(jwk, alg));
}

export function createBackChannelLogoutActivities(deps: BackChannelLogoutDeps): Pick<Activities, 'attemptBackChannelLogout'> {
  const recordFailure = (input: BackChannelLogoutAttempt, statusCode: number | null, error: string) =>
    deps.pool.transaction((trx) =>
      recordChange(trx, {
        actor: { type: 'system', id: 'back-channel-logout' },
        action: 'session.back_channel_logout_fail',
        resource: { type: 'session', id: input.sessionId },
        scope: { tenantId: input.tenantId, environmentId: input.environmentId },
        event: {
          type: 'session.back_channel_logout_failed',
          data: { sessionId: input.sessionId, userId: input.sub, clientId: input.clientId, attempts: input.attempt, statusCode, error },
        },
      }),
    );

  return {
    attemptBackChannelLogout: async (input): Promise<BackChannelLogoutResult> => {
      const client = await createProviderClientQueries(deps.pool, input.environmentId).findActive(input.clientId);
      if (!client?.backchannelLogoutUri) return { outcome: 'settled' };
      const token = await logoutToken(deps, input, client.idTokenSignedResponseAlg);
      const sent = await postOutbound(
        client.backchannelLogoutUri,
        new URLSearchParams({ logout_token: token }).toString(),
        { 'content-type': 'application/x-www-form-urlencoded' },
        { timeoutMs: BACK_CHANNEL_LOGOUT_TIMEOUT_MS, allowPrivate: deps.allowPrivate, lookup: deps.lookup },
      );
      if (sent.ok) return { outcome: 'sent', statusCode: sent.statusCode };
      const error = (sent.error ?? `answered ${sent.statusCode}`).slice(0, 500);
      if (transient(sent.statusCode) && input.attempt < input.attempts) return { outcome: 'retry', statusCode: sent.statusCode, error };
      await recordFailure(input, sent.statusCode, error);
      return { outcome: 'failed', statusCode: sent.statusCode, error };
    },
  };
}
