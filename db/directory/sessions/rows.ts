// A sign-in session as the directory shows it: one per provider Session, written by the provider's adapter.
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../../shared/rows.ts';

export const DirectorySession = z
  .object({
    id: uuid,
    userId: uuid,
    clientIds: z.array(z.string()).describe('The clients the session signed in to'),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    factors: z.array(z.string()).describe('The factors used, as amr values (pwd, otp, hwk…), in order'),
    createdAt: isoTimestamp,
    lastActiveAt: isoTimestamp,
    expiresAt: nullableTimestamp,
    revokedAt: nullableTimestamp,
    active: z.boolean().describe("Neither revoked, nor past expiresAt, nor idle longer than the environment's idleLifetimeSeconds"),
  })
  .meta({ id: 'DirectorySession' });
export type DirectorySession = z.infer<typeof DirectorySession>;

/** The provider's Session record, as far as a revocation reads it (oidc-provider's Session payload). */
export const ProviderSession = z.looseObject({
  accountId: z.string().optional(),
  authorizations: z.record(z.string(), z.looseObject({ sid: z.string().optional(), grantId: z.string().optional() })).optional(),
});
export type ProviderSession = z.infer<typeof ProviderSession>;
