// The public shape of an environment's SMS provider (SPEC "Delivery providers") and its stored row.
import { z } from 'zod';
import { SMS_PROVIDER_KINDS } from '../../lib/sms/kinds.ts';
import { isoTimestamp, uuid } from '../shared/rows.ts';

export { SMS_PROVIDER_KINDS };
export type { SmsProviderKind } from '../../lib/sms/kinds.ts';

export const EnvironmentSmsProvider = z
  .object({
    id: uuid,
    environmentId: uuid,
    provider: z.enum(SMS_PROVIDER_KINDS),
    active: z.boolean(),
    rank: z.number().int().describe('Failover rank: active providers are tried lowest first'),
    config: z.record(z.string(), z.unknown()).nullable(),
    secretHints: z.record(z.string(), z.string()).nullable().describe('Masked hints of the secrets; the secrets are never returned'),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'EnvironmentSmsProvider' });
export type EnvironmentSmsProvider = z.infer<typeof EnvironmentSmsProvider>;

export const SmsProviderRecord = EnvironmentSmsProvider.extend({ secretsEncrypted: z.string() });
export type SmsProviderRecord = z.infer<typeof SmsProviderRecord>;
