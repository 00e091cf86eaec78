import { z } from 'zod';

export const MfaUserParams = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid(), userId: z.uuid() });
export const MfaFactorParams = MfaUserParams.extend({ factorId: z.uuid() });

export const MfaFactor = z
  .object({
    id: z.uuid(),
    type: z.enum(['totp', 'phone']).describe('`totp`: an authenticator app (RFC 6238); `phone`: a phone number that codes are texted to, verified by one.'),
    confirmed: z.boolean().describe('Whether the user confirmed it with a code; an unconfirmed factor is an enrolment in progress and is never asked for.'),
    createdAt: z.iso.datetime({ offset: true }),
    confirmedAt: z.iso.datetime({ offset: true }).nullable(),
    lastUsedAt: z.iso.datetime({ offset: true }).nullable().describe('When a code of it last signed the user in.'),
    phoneNumber: z.string().optional().describe('A `phone` factor’s number, E.164 (absent for `totp`).'),
  })
  .meta({ id: 'MfaFactor' });

export const MfaFactorsResponse = z
  .object({
    factors: z
      .array(MfaFactor)
      .describe(
        'The user’s TOTP factor, confirmed or not (at most one each way), then their phone factor (at most one, always confirmed): never a list that grows. The secret is never shown.',
      ),
    recoveryCodesLeft: z.number().int().min(0).describe('How many of the user’s recovery codes are still unused.'),
  })
  .meta({ id: 'MfaFactors' });
