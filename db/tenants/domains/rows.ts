import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../../shared/rows.ts';

export const TenantDomain = z
  .object({
    id: uuid,
    tenantId: uuid,
    domain: z.string().describe('The domain, lowercase, without a trailing dot'),
    validationMethod: z.string().describe('How ownership is proven: `dns_txt`'),
    verified: z.boolean().describe('False until verification succeeds'),
    validationSubDomain: z.string().nullable().describe('The name to publish the TXT record at, e.g. `_iam-challenge.example.com`'),
    validationToken: z.string().nullable().describe('The value of the TXT record'),
    createdAt: isoTimestamp.nullable(),
    validatedAt: nullableTimestamp.describe('When verification succeeded'),
    updatedAt: isoTimestamp.nullable(),
  })
  .meta({ id: 'TenantDomain' });
export type TenantDomain = z.infer<typeof TenantDomain>;
