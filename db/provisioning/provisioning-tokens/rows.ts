// A provisioning token as the API shows it: never its value or hashes, only a display prefix and hint.
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../../shared/rows.ts';

export const PROVISIONING_KINDS = ['scim', 'hris'] as const;
export type ProvisioningKind = (typeof PROVISIONING_KINDS)[number];

export const ProvisioningToken = z
  .object({
    id: uuid,
    environmentId: uuid,
    name: z.string(),
    description: z.string().nullable(),
    kind: z.enum(PROVISIONING_KINDS).describe('scim: SCIM 2.0 at /v1/scim/v2 (adscim_…); hris: HRIS at /v1/hris/v1 (adhris_…)'),
    prefix: z.string().describe('The first characters of the token, to recognise it'),
    hint: z.string().describe('The last 4 characters of the token'),
    expiresAt: nullableTimestamp,
    lastUsedAt: nullableTimestamp.describe('When it last authenticated a request (updated at most once a minute)'),
    previousTokenExpiresAt: nullableTimestamp.describe('After a rotation, until when the previous value keeps working; null when none does'),
    revokedAt: nullableTimestamp,
    rateLimitPerMinute: z
      .number()
      .int()
      .nullable()
      .describe('Requests a minute it may make (per instance); null: the default of its kind (RATE_LIMIT_PROVISIONING_TOKEN_MAX)'),
    active: z.boolean().describe('Neither revoked nor expired'),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'ProvisioningToken' });
export type ProvisioningToken = z.infer<typeof ProvisioningToken>;
