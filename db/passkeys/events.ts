// Events of passkeys (WebAuthn), assembled into db/event-catalog.ts. No event holds a public key, a challenge or an
// authenticator response.
import { z } from 'zod';
import type { EventTypeEntry } from '../shared/event-type-entry.ts';
import { uuid } from '../shared/rows.ts';
import { PASSKEY_DEVICE_TYPES } from './rows.ts';

/** Why a registration ceremony was refused. */
export const REGISTRATION_REFUSALS = [
  'expired',
  'challenge_mismatch',
  'origin_mismatch',
  'user_inactive',
  'already_registered',
  'verification_failed',
] as const;
/** Why a sign-in with a passkey was refused (`counter_regressed` has its own event). */
export const AUTHENTICATION_REFUSALS = [
  'unknown_credential',
  'challenge_mismatch',
  'origin_mismatch',
  'counter_regressed',
  'user_inactive',
  'expired',
  'verification_failed',
] as const;

const passkey = { userId: uuid, passkeyId: uuid, name: z.string() };
const ip = z.string().nullable();

export const PASSKEY_EVENTS = {
  'user.passkey_added': {
    description: 'A directory user registered a passkey (a WebAuthn credential) on the environment’s sign-in pages.',
    data: z.looseObject({ ...passkey, deviceType: z.enum(PASSKEY_DEVICE_TYPES), backedUp: z.boolean(), aaguid: z.guid().nullable() }),
  },
  'user.passkey_renamed': {
    description: 'A directory user’s passkey was renamed through the directory API.',
    data: z.looseObject({ ...passkey, previousName: z.string() }),
  },
  'user.passkey_removed': {
    description: 'A directory user’s passkey was removed through the directory API: it can no longer sign in.',
    data: z.looseObject(passkey),
  },
  'user.passkey_registration_failed': {
    description:
      'A passkey registration was refused and nothing was stored. `reason`: `expired` (the challenge was used already or has expired), `challenge_mismatch` (no registration challenge of this user in this environment has that id, or the response signs another challenge), `origin_mismatch` (it was made for another site), `user_inactive`, `already_registered` (the credential is already a passkey of this environment), `verification_failed` (the attestation did not verify).',
    data: z.looseObject({ userId: uuid, reason: z.enum(REGISTRATION_REFUSALS), ip }),
  },
  'user.passkey_sign_in_failed': {
    description:
      'A sign-in with a passkey was refused and nothing changed. `reason`: `unknown_credential` (no passkey of this environment has the credential, or it is not the expected user’s), `challenge_mismatch` (no sign-in challenge of this environment has that id, or the response signs another challenge), `origin_mismatch` (it was made for another site), `user_inactive`, `expired` (the challenge was used already or has expired: a replay), `verification_failed` (the signature or the authenticator data did not verify). A regressed counter is `user.passkey_counter_regressed`.',
    data: z.looseObject({
      userId: uuid.nullable(),
      passkeyId: uuid.nullable(),
      reason: z.enum(AUTHENTICATION_REFUSALS).exclude(['counter_regressed']),
      ip,
    }),
  },
  'user.passkey_counter_regressed': {
    description:
      'A correctly signed passkey assertion carried a signature counter not above the stored one: the authenticator may have been cloned. The sign-in was refused and the counter kept.',
    data: z.looseObject({ userId: uuid, passkeyId: uuid, storedCounter: z.number().int(), receivedCounter: z.number().int(), ip }),
  },
} as const satisfies Record<string, EventTypeEntry>;
