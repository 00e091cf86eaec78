import { z } from 'zod';
import { ApiSecret } from '../../../../db/access/api-secrets/rows.ts';
import { SECRET_PURPOSES } from '../../../../lib/secret-purposes.ts';
import { displayName, pageOf } from '../../../common/schemas.ts';
import { EnvironmentScopeParams } from '../../projects/environment-settings/schemas.ts';

export { ApiSecret, EnvironmentScopeParams };

/** The longest grace period of a rotation: 30 days. */
export const MAX_GRACE_SECONDS = 2_592_000;

const description = z.string().max(2000).nullable().optional();

/** A credential's own rate limit: requests a minute, per instance; null or absent: the default of its kind. */
export const rateLimitPerMinute = (setting: string) =>
  z
    .number()
    .int('must be an integer')
    .min(1, 'must be at least 1')
    .max(1_000_000_000, 'must be at most 1000000000')
    .nullable()
    .optional()
    .describe(`Requests a minute it may make, per instance (beyond: 429 with Retry-After); null: ${setting}`);

export const CreateApiSecretBody = z
  .strictObject({
    name: displayName(200),
    description,
    purposes: z
      .array(z.enum(SECRET_PURPOSES))
      .min(1, 'must name at least one purpose')
      .max(SECRET_PURPOSES.length)
      .refine((p) => new Set(p).size === p.length, 'must not repeat a purpose')
      .describe('authzen: AuthZEN at /access/v1; mcp: the trust-store runtime; fga: the FGA API at /v1/fga (OpenFGA)'),
    expiresAt: z.iso
      .datetime({ offset: true, error: 'must be an ISO 8601 date-time' })
      .nullable()
      .optional()
      .describe('When the secret stops working; never when absent'),
    rateLimitPerMinute: rateLimitPerMinute('RATE_LIMIT_API_SECRET_MAX (default 1200000)'),
  })
  .meta({ id: 'CreateApiSecretRequest' });

export const UpdateApiSecretBody = z
  .strictObject({ name: displayName(200).optional(), description, rateLimitPerMinute: rateLimitPerMinute('RATE_LIMIT_API_SECRET_MAX (default 1200000)') })
  .meta({ id: 'UpdateApiSecretRequest' });

export const RotateApiSecretBody = z
  .strictObject({
    gracePeriodSeconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_GRACE_SECONDS)
      .optional()
      .describe('How long the previous value keeps working (0: not at all); API_SECRET_ROTATION_GRACE when absent'),
  })
  .meta({ id: 'RotateApiSecretRequest' });

export const ApiSecretParams = EnvironmentScopeParams.extend({ secretId: z.uuid() });

export const ApiSecretResponse = z.object({ apiSecret: ApiSecret }).meta({ id: 'ApiSecretResponse' });
export const ApiSecretWithValueResponse = z
  .object({ apiSecret: ApiSecret, secret: z.string().describe('The adenv_ secret, shown only in this response') })
  .meta({ id: 'ApiSecretWithValueResponse' });
export const ApiSecretsList = pageOf('apiSecrets', ApiSecret).meta({ id: 'ApiSecretsList' });
