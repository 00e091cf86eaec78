// Passkeys as the API shows them (never the public key) and as the ceremonies read them.
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../shared/rows.ts';

export const PASSKEY_DEVICE_TYPES = ['singleDevice', 'multiDevice'] as const;

export const Passkey = z
  .object({
    id: uuid,
    userId: uuid,
    name: z.string().describe('A name for the user: the authenticator’s, or "Passkey"; renamed through the API'),
    deviceType: z
      .enum(PASSKEY_DEVICE_TYPES)
      .describe('`multiDevice`: a synced passkey (it may be backed up and used on other devices); `singleDevice`: bound to one authenticator'),
    backedUp: z.boolean().describe('Whether the authenticator said the credential is backed up (synced), as of its last use'),
    transports: z.array(z.string()).describe('How the browser may reach the authenticator (`internal`, `hybrid`, `usb`, `nfc`, `ble`…)'),
    aaguid: z.guid().nullable().describe('The authenticator model’s AAGUID, when it gave one (all zeros are stored as null)'),
    createdAt: isoTimestamp,
    lastUsedAt: nullableTimestamp,
  })
  .meta({ id: 'Passkey' });
export type Passkey = z.infer<typeof Passkey>;

/** A passkey with what verifying an assertion needs, and whether its user may sign in. */
export const StoredPasskey = Passkey.extend({
  credentialId: z.string(),
  publicKey: z.instanceof(Buffer),
  counter: z.coerce.number().int(),
  userActive: z.boolean(),
});
export type StoredPasskey = z.infer<typeof StoredPasskey>;

export const CHALLENGE_PURPOSES = ['registration', 'authentication'] as const;
export type ChallengePurpose = (typeof CHALLENGE_PURPOSES)[number];

export const Challenge = z.object({
  id: uuid,
  userId: uuid.nullable(),
  purpose: z.enum(CHALLENGE_PURPOSES),
  challenge: z.string(),
  expiresAt: isoTimestamp,
});
export type Challenge = z.infer<typeof Challenge>;
