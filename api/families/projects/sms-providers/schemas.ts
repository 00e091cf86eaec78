// Request and response shapes of the SMS providers family; responses carry the SPEC's nullability (`x?` → `x|null`).
import { z } from 'zod';
import { ManagementMeta } from '../../../common/schemas.ts';
import { EnvironmentSmsProvider, SMS_PROVIDER_KINDS } from '../../../../db/sms-providers/rows.ts';

const meta = ManagementMeta.optional();

export { EnvironmentSmsProvider };

export const EnvironmentScopeParams = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid() });
export const SmsProviderParams = EnvironmentScopeParams.extend({
  provider: z.enum(SMS_PROVIDER_KINDS).describe('The provider kind: one provider per kind per environment'),
});

// Checked against the kind's own schema by the service, so errors name e.g. body.config.accountSid.
const config = z
  .record(z.string(), z.unknown())
  .describe(
    'Per kind (each also takes `baseUrl` and `allowedCountries`, ISO 3166 alpha-2 codes): twilio `{ accountSid, from | messagingServiceSid }`; ' +
      'messagebird `{ originator }`; sns `{ region, senderId? }`; vonage `{ from }`. Phone numbers in E.164. Replaces the whole stored config; kept when absent',
  );
const secrets = z
  .record(z.string(), z.unknown())
  .describe(
    'Per kind, write-only: twilio `{ authToken }`; messagebird `{ accessKey }`; sns `{ accessKeyId, secretAccessKey }`; vonage `{ apiKey, apiSecret }`. ' +
      'Required on the first save; on an update the ones given replace the stored ones and the others are kept',
  );

export const SaveSmsProviderBody = z
  .strictObject({
    provider: z.enum(SMS_PROVIDER_KINDS).optional().describe('The provider kind; when given, the same as the one in the path'),
    active: z.boolean().optional().describe('Whether sending uses this provider (default true on creation)'),
    rank: z.number().int().min(0).optional().describe('Failover rank, lowest first (default: after the last provider)'),
    config: config.optional(),
    secrets: secrets.optional(),
  })
  .meta({ id: 'SaveEnvironmentSmsProviderRequest' });

export const TestSmsProviderBody = z
  .strictObject({ recipient: z.string().describe('The phone number to send the test SMS to, in E.164 form, e.g. +14155552671') })
  .meta({ id: 'TestSmsProviderRequest' });

export const SmsProvidersList = z.object({ providers: z.array(EnvironmentSmsProvider).nullable(), meta }).meta({ id: 'EnvironmentSmsProvidersResponse' });
export const SaveSmsProviderResponse = z.object({ provider: EnvironmentSmsProvider.nullable(), meta }).meta({ id: 'SaveEnvironmentSmsProviderResponse' });
export const TestSmsProviderResponse = z
  .object({ success: z.boolean().nullable(), messageId: z.string().nullable().describe("The vendor's id of the message it accepted"), meta })
  .meta({ id: 'TestSmsProviderResponse' });
export const SmsProviderSuccessResponse = z.object({ success: z.boolean().nullable(), meta }).meta({ id: 'SmsProviderSuccessResponse' });
