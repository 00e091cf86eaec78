import { z } from 'zod';

export const LockoutListParams = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid() });
export const LockoutParams = LockoutListParams.extend({ lockoutId: z.uuid() });

export const LockoutListQuery = z.strictObject({
  userId: z.uuid().optional().describe('Only the lockouts of identifiers that name this user.'),
  kind: z.enum(['identifier', 'ip']).optional().describe('Only lockouts of identifiers, or only of IP addresses.'),
});

const timestamp = z.iso.datetime({ offset: true });

export const BruteForceLockout = z
  .object({
    id: z.uuid(),
    kind: z.enum(['identifier', 'ip']).describe('`identifier`: the identifier typed, whoever it names; `ip`: a client IP address.'),
    key: z.string().describe('The lower-cased identifier, or the IP address.'),
    userId: z.uuid().nullable().describe('The user the identifier named when it was locked; null for an IP address or an identifier of no user.'),
    failures: z.number().int().describe('Failed passwords counted in the window that ended in the lockout.'),
    lastFailureAt: timestamp,
    lockedUntil: timestamp.describe('Attempts of this key are refused (429) until then.'),
  })
  .meta({ id: 'BruteForceLockout' });

export const BruteForceLockoutsResponse = z
  .object({ lockouts: z.array(BruteForceLockout).describe('The current lockouts, the longest first (at most 1000).'), total: z.number().int() })
  .meta({ id: 'BruteForceLockoutsResponse' });

export const BruteForceLockoutResponse = z.object({ lockout: BruteForceLockout }).meta({ id: 'BruteForceLockoutResponse' });
