// Passkey sign-in: options for navigator.credentials.get() (for a known user, or discoverable for conditional UI) and
// the verification of the assertion. A verified assertion moves the passkey's counter forward and sets
// `last_used_at`; a refusal changes nothing but the challenge (used up) and records why.
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { webauthn } from './webauthn.ts';
import type { DatabasePool, DatabaseTransactionConnection } from 'slonik';
import { createPasskeyQueries } from '../../db/passkeys/queries.ts';
import type { AUTHENTICATION_REFUSALS } from '../../db/passkeys/events.ts';
import type { Passkey, StoredPasskey } from '../../db/passkeys/rows.ts';
import type { RequestOrigin } from '../../db/shared/changes.ts';
import { clientDataProblem } from '../../lib/webauthn/client-data.ts';
import type { RelyingParty } from '../../lib/webauthn/relying-party.ts';
import { userIdOfHandle } from '../../lib/webauthn/user-handle.ts';
import { notFound } from '../errors.ts';
import { CHALLENGE_TTL_SECONDS, consumeChallenge, issueChallenge } from './challenges.ts';
import { recordRefusal, type PasskeyEnvironment } from './record.ts';
import { authenticationResponseOf } from './responses.ts';

export type AuthenticationRefusal = (typeof AUTHENTICATION_REFUSALS)[number];

export interface VerifiedPasskey {
  ok: true;
  userId: string;
  passkeyId: string;
  /** Whether the authenticator verified the user (PIN, biometrics), not only their presence. */
  userVerified: boolean;
  /** The passkey after this use (counter moved, `lastUsedAt` set). */
  passkey: Passkey;
}
export type AuthenticationResult = VerifiedPasskey | { ok: false; reason: AuthenticationRefusal };

export interface VerifyAuthenticationOptions {
  origin?: RequestOrigin;
  /**
   * Runs in the transaction that records the use, so the caller's own record of the sign-in (`user.signed_in`)
   * commits with it or not at all.
   */
  onVerified?: (trx: DatabaseTransactionConnection, result: VerifiedPasskey) => Promise<void>;
}

export function createAuthenticationCeremony(pool: DatabasePool, rp: RelyingParty) {
  return {
    /**
     * Options for `navigator.credentials.get()`. With a user (identifier first), `allowCredentials` lists their
     * passkeys (404 `user.not_found` for an unknown user); with null, it is empty: the browser offers the
     * discoverable passkeys it holds for the RP (conditional UI, `mediation: 'conditional'`).
     */
    authenticationOptions: async (
      env: PasskeyEnvironment,
      userId: string | null,
    ): Promise<{ challengeId: string; options: PublicKeyCredentialRequestOptionsJSON }> => {
      const queries = createPasskeyQueries(pool, env.environmentId);
      if (userId !== null && !(await queries.ceremonyUser(userId, env.tenantId))) throw notFound('user', userId);
      const allowed = userId === null ? [] : await queries.credentialsOfUser(userId);
      const { generateAuthenticationOptions } = await webauthn();
      const options = await generateAuthenticationOptions({
        rpID: rp.id,
        allowCredentials: allowed.map((c) => ({ id: c.credentialId, transports: c.transports })),
        userVerification: 'preferred',
        timeout: CHALLENGE_TTL_SECONDS * 1000,
      });
      const challenge = await issueChallenge(pool, env.environmentId, userId, 'authentication', options.challenge);
      return { challengeId: challenge.id, options };
    },

    /**
     * Verifies an assertion against the authentication `challengeId`: the credential must be a passkey of this
     * environment (of the challenge's user, when it names one), signed over this challenge at this origin, with a
     * counter above the stored one (unless both are zero), and its user active. The challenge is used up either way.
     */
    verifyAuthentication: async (
      env: PasskeyEnvironment,
      challengeId: string,
      response: unknown,
      options: VerifyAuthenticationOptions = {},
    ): Promise<AuthenticationResult> => {
      const origin = options.origin ?? {};
      const ip = origin.ip ?? null;
      let passkey: StoredPasskey | null = null;
      const refuse = async (reason: Exclude<AuthenticationRefusal, 'counter_regressed'>): Promise<AuthenticationResult> => {
        const userId = passkey?.userId ?? null;
        const passkeyId = passkey?.id ?? null;
        await recordRefusal(pool, env, origin, { userId, passkeyId, event: { type: 'user.passkey_sign_in_failed', data: { userId, passkeyId, reason, ip } } });
        return { ok: false, reason };
      };
      const regressed = async (stored: StoredPasskey, receivedCounter: number): Promise<AuthenticationResult> => {
        const data = { userId: stored.userId, passkeyId: stored.id, storedCounter: stored.counter, receivedCounter, ip };
        await recordRefusal(pool, env, origin, { userId: stored.userId, passkeyId: stored.id, event: { type: 'user.passkey_counter_regressed', data } });
        return { ok: false, reason: 'counter_regressed' };
      };

      const consumed = await consumeChallenge(pool, env.environmentId, challengeId, 'authentication');
      if (!consumed.ok) return refuse(consumed.reason);
      const { challenge } = consumed;
      const parsed = authenticationResponseOf(response);
      if (!parsed) return refuse('verification_failed');
      const problem = clientDataProblem(parsed.response.clientDataJSON, { type: 'webauthn.get', challenge: challenge.challenge, origin: rp.origin });
      if (problem) return refuse(problem);

      const found = await createPasskeyQueries(pool, env.environmentId).findByCredentialId(parsed.id);
      if (!found) return refuse('unknown_credential');
      const handleUser = parsed.response.userHandle ? userIdOfHandle(parsed.response.userHandle) : found.userId;
      if ((challenge.userId !== null && found.userId !== challenge.userId) || handleUser !== found.userId) return refuse('unknown_credential');
      passkey = found;

      // The library is given counter 0 so that it verifies the signature first: only a correctly signed assertion
      // can report a regressed counter (a cloned authenticator), checked just below.
      const { verifyAuthenticationResponse } = await webauthn();
      const verified = await verifyAuthenticationResponse({
        response: parsed,
        expectedChallenge: challenge.challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        credential: { id: found.credentialId, publicKey: new Uint8Array(found.publicKey), counter: 0, transports: [] },
        requireUserVerification: false,
      }).catch(() => null);
      if (!verified?.verified) return refuse('verification_failed');
      if (!found.userActive) return refuse('user_inactive');
      const { newCounter, credentialBackedUp, userVerified } = verified.authenticationInfo;
      if ((newCounter > 0 || found.counter > 0) && newCounter <= found.counter) return regressed(found, newCounter);

      const result = await pool.transaction(async (trx) => {
        const used = await createPasskeyQueries(trx, env.environmentId).recordUse(found.id, newCounter, credentialBackedUp);
        // Another assertion with this counter (or a higher one) was recorded first.
        if (!used) return null;
        const done: VerifiedPasskey = { ok: true, userId: found.userId, passkeyId: found.id, userVerified, passkey: used };
        await options.onVerified?.(trx, done);
        return done;
      });
      if (result) return result;
      // Another use got there first: the passkey as it is now says whether it was removed meanwhile or moved on.
      const now = await createPasskeyQueries(pool, env.environmentId).findByCredentialId(found.credentialId);
      return now ? regressed(now, newCounter) : refuse('unknown_credential');
    },
  };
}
