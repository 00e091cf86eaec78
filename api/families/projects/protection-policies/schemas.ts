import { z } from 'zod';
import { ManagementMeta } from '../../../common/schemas.ts';
import { domainProblem } from '../../../common/domain-name.ts';
import { DOMAIN_LIST_MAX, domainsOf, PROTECTION_SETTINGS, RestrictionsSettings } from '../../../../lib/protections/settings.ts';
import type { PolicyRoute } from './policies.ts';

export const ProtectionPolicyParams = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid() });

/** A domain list setting: every entry a public domain name, at most DOMAIN_LIST_MAX; stored normalized (`a.com, b.org`). */
const domainList = RestrictionsSettings.shape.allowlistDomains.unwrap().superRefine((list, ctx) => {
  const domains = domainsOf(list);
  if (domains.length > DOMAIN_LIST_MAX) ctx.addIssue({ code: 'custom', message: `must list at most ${DOMAIN_LIST_MAX} domains` });
  for (const domain of domains) {
    const problem = domainProblem(domain);
    if (problem) return ctx.addIssue({ code: 'custom', message: `${domain}: ${problem}` });
  }
});
const normalized = (list: string | null) => (list === null || domainsOf(list).length === 0 ? null : domainsOf(list).join(', '));

const bodies = {
  ...PROTECTION_SETTINGS,
  restrictions: RestrictionsSettings.extend({
    allowlistDomains: domainList.default(null).transform(normalized),
    blocklistDomains: domainList.default(null).transform(normalized),
  }),
};

export const bodyOf = (route: PolicyRoute) => bodies[route.kind].meta({ id: `Update${route.shape}Request` });

/** The settings' fields without their defaults (a response states every value). */
const fieldsOf = (route: PolicyRoute) =>
  Object.fromEntries(Object.entries(PROTECTION_SETTINGS[route.kind].shape).map(([k, v]) => [k, v instanceof z.ZodDefault ? v.unwrap() : v]));

const timestamp = z.iso.datetime({ offset: true });

export function responseOf(route: PolicyRoute) {
  const environmentId = route.key === 'restrictions' ? { environmentId: z.uuid() } : {};
  const shape = z
    .object({ id: z.uuid(), ...environmentId, ...fieldsOf(route), createdAt: timestamp, updatedAt: timestamp })
    .nullable()
    .meta({ id: route.shape });
  return z
    .object({
      [route.key]: shape.describe(`The saved ${route.title}; null while the environment never saved one (the policy is off).`),
      meta: ManagementMeta.optional(),
    })
    .meta({ id: `${route.shape}Response` });
}
