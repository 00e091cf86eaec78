import { z } from 'zod';
import { PROVISIONING_KINDS, ProvisioningToken } from '../../../../db/provisioning/provisioning-tokens/rows.ts';
import { displayName, pageOf } from '../../../common/schemas.ts';
import { EnvironmentScopeParams } from '../../projects/environment-settings/schemas.ts';
import { RotateApiSecretBody, rateLimitPerMinute } from '../../access/api-secrets/schemas.ts';

export { ProvisioningToken, EnvironmentScopeParams };

export const CreateProvisioningTokenBody = z
  .strictObject({
    name: displayName(200),
    kind: z.enum(PROVISIONING_KINDS).describe('scim: SCIM 2.0 at /v1/scim/v2 (adscim_…); hris: HRIS at /v1/hris/v1 (adhris_…)'),
    description: z.string().max(2000).nullable().optional(),
    expiresAt: z.iso
      .datetime({ offset: true, error: 'must be an ISO 8601 date-time' })
      .nullable()
      .optional()
      .describe('When the token stops working; never when absent'),
    rateLimitPerMinute: rateLimitPerMinute('RATE_LIMIT_PROVISIONING_TOKEN_MAX (default 6000)'),
  })
  .meta({ id: 'CreateProvisioningTokenRequest' });

export const RotateProvisioningTokenBody = RotateApiSecretBody.meta({ id: 'RotateProvisioningTokenRequest' });

export const ProvisioningTokenParams = EnvironmentScopeParams.extend({ tokenId: z.uuid() });

export const ProvisioningTokenResponse = z.object({ provisioningToken: ProvisioningToken }).meta({ id: 'ProvisioningTokenResponse' });
export const ProvisioningTokenWithValueResponse = z
  .object({ provisioningToken: ProvisioningToken, token: z.string().describe('The adscim_ or adhris_ token, shown only in this response') })
  .meta({ id: 'ProvisioningTokenWithValueResponse' });
export const ProvisioningTokensList = pageOf('provisioningTokens', ProvisioningToken).meta({ id: 'ProvisioningTokensList' });
