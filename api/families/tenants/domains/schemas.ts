import { z } from 'zod';
import { TenantDomain } from '../../../../db/tenants/domains/rows.ts';
import { TenantParams } from '../tenants/schemas.ts';
import { pageOf } from '../../../common/schemas.ts';
import { domainName, domainProblem } from '../../../common/domain-name.ts';

export { domainProblem };

export { TenantDomain };

const domain = domainName(300).describe('A hostname such as example.com or login.example.com (lowercased; no scheme, port or wildcard)');

export const CreateTenantDomainBody = z
  .strictObject({
    domain,
    validationMethod: z.enum(['dns_txt'], { error: 'must be dns_txt (the only validation method)' }).describe('`dns_txt`: publish the token as a TXT record'),
  })
  .meta({ id: 'CreateTenantDomainRequest' });

export const TenantDomainParams = TenantParams.extend({ domainId: z.uuid() });

export const CreateTenantDomainResponse = z.object({ domain: TenantDomain }).meta({ id: 'CreateTenantDomainResponse' });
export const TenantDomainResponse = z.object({ domain: TenantDomain }).meta({ id: 'TenantDomainResponse' });
export const TenantDomainsResponse = pageOf('domains', TenantDomain).meta({ id: 'TenantDomainsResponse' });
export const RetryTenantDomainVerificationResponse = z
  .object({
    success: z.boolean().describe('Whether the domain is verified after this check'),
    message: z.string().nullable().describe('What the check found: verified, no TXT record, token mismatch, held by another tenant'),
    domain: TenantDomain.nullable(),
  })
  .meta({ id: 'RetryTenantDomainVerificationResponse' });
