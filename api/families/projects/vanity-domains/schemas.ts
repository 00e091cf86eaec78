import { z } from 'zod';
import { VanityDomain } from '../../../../db/vanity-domains/rows.ts';
import { pageOf } from '../../../common/schemas.ts';
import { domainName } from '../../../common/domain-name.ts';

export { VanityDomain };

export const EnvironmentScopeParams = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid() });
export const VanityDomainParams = EnvironmentScopeParams.extend({ vanityDomainId: z.uuid() });

const hostname = domainName(253, (v) =>
  v.split('.').length < 3 ? 'must be a subdomain such as login.example.com (an apex cannot have a CNAME)' : undefined,
).describe('The host to serve the environment on, such as login.example.com (lowercased; a subdomain, no scheme, port or wildcard)');

export const CreateVanityDomainBody = z.strictObject({ hostname }).meta({ id: 'CreateVanityDomainRequest' });

export const VanityDomainResponse = z.object({ domain: VanityDomain }).meta({ id: 'VanityDomainResponse' });
export const VanityDomainsResponse = pageOf('domains', VanityDomain).meta({ id: 'VanityDomainsResponse' });
