// An environment API secret as the API shows it: never its value or hashes, only a display prefix and hint.
import { z } from 'zod';
import { SECRET_PURPOSES } from '../../../lib/secret-purposes.ts';
import { isoTimestamp, nullableTimestamp, uuid } from '../../shared/rows.ts';

export const ApiSecret = z
  .object({
    id: uuid,
    environmentId: uuid,
    name: z.string(),
    description: z.string().nullable(),
    purposes: z.array(z.enum(SECRET_PURPOSES)).describe('authzen: AuthZEN at /access/v1; mcp: the trust-store runtime; fga: the FGA API at /v1/fga (OpenFGA)'),
    prefix: z.string().describe('The first characters of the secret (adenv_…), to recognise it'),
    hint: z.string().describe('The last 4 characters of the secret'),
    expiresAt: nullableTimestamp,
    lastUsedAt: nullableTimestamp.describe('When it last authenticated a request (updated at most once a minute)'),
    previousSecretExpiresAt: nullableTimestamp.describe('After a rotation, until when the previous value keeps working; null when none does'),
    revokedAt: nullableTimestamp,
    rateLimitPerMinute: z
      .number()
      .int()
      .nullable()
      .describe('Requests a minute it may make (per instance); null: the default of its kind (RATE_LIMIT_API_SECRET_MAX)'),
    active: z.boolean().describe('Neither revoked nor expired'),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'ApiSecret' });
export type ApiSecret = z.infer<typeof ApiSecret>;
