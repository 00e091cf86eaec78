// Passkey registration for a signed-in directory user: options for navigator.credentials.create() and the verification
// of what the authenticator answered. A verified credential is stored with `user.passkey_added`; a refusal stores
// nothing and records `user.passkey_registration_failed` with its reason.
import type { PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/server';
import { webauthn } from './webauthn.ts';
import type { DatabasePool } from 'slonik';
import { createPasskeyQueries } from '../../db/passkeys/queries.ts';
import type { Passkey } from '../../db/passkeys/rows.ts';
import type { REGISTRATION_REFUSALS } from '../../db/passkeys/events.ts';
import type { RequestOrigin } from '../../db/shared/changes.ts';
import { clientDataProblem } from '../../lib/webauthn/client-data.ts';
import { defaultPasskeyName } from '../../lib/webauthn/authenticator-names.ts';
import { nameProblem } from '../../lib/text.ts';
import { SUPPORTED_ALGORITHMS, type RelyingParty } from '../../lib/webauthn/relying-party.ts';
import { userHandleOf } from '../../lib/webauthn/user-handle.ts';
import { ApiError, notFound } from '../errors.ts';
import { CHALLENGE_TTL_SECONDS, consumeChallenge, issueChallenge } from './challenges.ts';
import { recordOutcome, recordRefusal, type PasskeyEnvironment } from './record.ts';
import { knownTransports, registrationResponseOf } from './responses.ts';

export type RegistrationRefusal = (typeof REGISTRATION_REFUSALS)[number];
export type RegistrationResult = { ok: true; passkey: Passkey } | { ok: false; reason: RegistrationRefusal };

const ZERO_AAGUID = '00000000-0000-0000-0000-000000000000';

/** The name the page proposes (trimmed, 1–100 characters, no control characters), else the provider's, else "Passkey". */
const nameFor = (proposed: string | undefined, aaguid: string | null) => {
  const name = proposed?.trim() ?? '';
  return name.length > 0 && [...name].length <= 100 && !nameProblem(name) ? name : defaultPasskeyName(aaguid);
};

export function createRegistrationCeremony(pool: DatabasePool, rp: RelyingParty) {
  /** The user, who must exist (404 `user.not_found`) and be active (403 `passkey.user_inactive`). */
  const activeUser = async (env: PasskeyEnvironment, userId: string) => {
    const user = await createPasskeyQueries(pool, env.environmentId).ceremonyUser(userId, env.tenantId);
    if (!user) throw notFound('user', userId);
    if (!user.active) throw new ApiError(403, 'passkey.user_inactive', `User ${userId} is deactivated and cannot register a passkey.`);
    return user;
  };

  return {
    /**
     * Options for `navigator.credentials.create()`: a discoverable credential (`residentKey: 'required'`, so the
     * user can sign in without typing a name), user verification preferred, ES256 or RS256, excluding the user's
     * passkeys. Pass `challengeId` back with the response.
     */
    registrationOptions: async (env: PasskeyEnvironment, userId: string): Promise<{ challengeId: string; options: PublicKeyCredentialCreationOptionsJSON }> => {
      const user = await activeUser(env, userId);
      const existing = await createPasskeyQueries(pool, env.environmentId).credentialsOfUser(userId);
      const { generateRegistrationOptions } = await webauthn();
      const options = await generateRegistrationOptions({
        rpName: user.environmentName,
        rpID: rp.id,
        userName: user.userName,
        userID: userHandleOf(userId),
        userDisplayName: user.displayName ?? user.userName,
        timeout: CHALLENGE_TTL_SECONDS * 1000,
        attestationType: 'none',
        excludeCredentials: existing.map((c) => ({ id: c.credentialId, transports: c.transports })),
        authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
        supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
      });
      const challenge = await issueChallenge(pool, env.environmentId, userId, 'registration', options.challenge);
      return { challengeId: challenge.id, options };
    },

    /**
     * Verifies the authenticator's answer to the registration `challengeId` of `userId` and stores the passkey
     * (named `name`, else after its provider, else "Passkey"). The challenge is used up either way.
     */
    verifyRegistration: async (
      env: PasskeyEnvironment,
      userId: string,
      challengeId: string,
      response: unknown,
      options: { name?: string; origin?: RequestOrigin } = {},
    ): Promise<RegistrationResult> => {
      const origin = options.origin ?? {};
      const refuse = async (reason: RegistrationRefusal): Promise<RegistrationResult> => {
        await recordRefusal(pool, env, origin, {
          userId,
          event: { type: 'user.passkey_registration_failed', data: { userId, reason, ip: origin.ip ?? null } },
        });
        return { ok: false, reason };
      };
      const user = await createPasskeyQueries(pool, env.environmentId).ceremonyUser(userId, env.tenantId);
      if (!user) throw notFound('user', userId);
      const consumed = await consumeChallenge(pool, env.environmentId, challengeId, 'registration', userId);
      if (!consumed.ok) return refuse(consumed.reason);
      if (!user.active) return refuse('user_inactive');
      const parsed = registrationResponseOf(response);
      if (!parsed) return refuse('verification_failed');
      const problem = clientDataProblem(parsed.response.clientDataJSON, {
        type: 'webauthn.create',
        challenge: consumed.challenge.challenge,
        origin: rp.origin,
      });
      if (problem) return refuse(problem);

      const { verifyRegistrationResponse } = await webauthn();
      const verified = await verifyRegistrationResponse({
        response: parsed,
        expectedChallenge: consumed.challenge.challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: false,
        supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
      }).catch(() => null);
      if (!verified?.verified) return refuse('verification_failed');
      const info = verified.registrationInfo;
      const aaguid = info.aaguid === ZERO_AAGUID ? null : info.aaguid;

      const passkey = await pool.transaction(async (trx) => {
        const stored = await createPasskeyQueries(trx, env.environmentId).insert({
          userId,
          credentialId: info.credential.id,
          publicKey: info.credential.publicKey,
          counter: info.credential.counter,
          transports: knownTransports(parsed.response.transports),
          deviceType: info.credentialDeviceType,
          backedUp: info.credentialBackedUp,
          aaguid,
          name: nameFor(options.name, aaguid),
        });
        if (!stored) return null;
        const { id: passkeyId, name, deviceType, backedUp } = stored;
        await recordOutcome(trx, env, origin, {
          userId,
          passkeyId,
          after: { name, deviceType, backedUp, aaguid, transports: stored.transports },
          event: { type: 'user.passkey_added', data: { userId, passkeyId, name, deviceType, backedUp, aaguid } },
        });
        return stored;
      });
      return passkey ? { ok: true, passkey } : refuse('already_registered');
    },
  };
}
