import { z } from 'zod';
import { TenantDomain } from '../../../../db/tenants/domains/rows.ts';
import { TenantParams } from '../tenants/schemas.ts';
import { pageOf } from '../../../common/schemas.ts';

export { TenantDomain };

const NOT_PUBLIC = new Set(['localhost', 'local', 'internal', 'invalid', 'test', 'arpa']);
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Why `domain` (trimmed, lowercased) is not a public hostname a tenant can claim, or undefined when it is. */
export function domainProblem(domain: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(domain)) return 'must be a domain name without a scheme (example.com, not https://example.com)';
  if (domain.includes('*')) return 'must not be a wildcard; add the domain itself (example.com)';
  if (/[/?#@:\s]/.test(domain)) return 'must be a domain name alone, without a path, port or spaces';
  if (/[^\x20-\x7e]/.test(domain)) return 'must be ASCII: write an internationalized domain in its punycode (xn--) form';
  if (domain.length > 253) return 'must be at most 253 characters';
  const labels = domain.split('.');
  if (labels.some((l) => !LABEL.test(l)))
    return 'must be a hostname: dot-separated labels of 1-63 letters, digits and hyphens, not starting or ending with a hyphen';
  const tld = labels.at(-1)!;
  if (/^\d+$/.test(tld)) return 'must be a domain name, not an IP address';
  if (labels.length < 2) return 'must have at least two labels, such as example.com';
  if (NOT_PUBLIC.has(tld)) return `must be a public domain (.${tld} is reserved)`;
  return undefined;
}

const domain = z
  .string()
  .max(300)
  .trim()
  .toLowerCase()
  .overwrite((v) => v.replace(/\.$/, ''))
  .superRefine((v, ctx) => {
    const problem = domainProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .describe('A hostname such as example.com or login.example.com (lowercased; no scheme, port or wildcard)');

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
