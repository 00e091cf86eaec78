// Tenant domains: a tenant claims a domain and proves it with a DNS TXT record. Adding one starts its
// verification process (through the outbox, in the same transaction); POST …/verify checks at once with the
// same function the process runs.
import { randomBytes } from 'node:crypto';
import { UniqueIntegrityConstraintViolationError, type DatabasePool } from 'slonik';
import { verifyDomainNow } from '../../../../db/tenants/domains/verification.ts';
import { recordChange } from '../../../../db/shared/changes.ts';
import { createProcessOutboxQueries } from '../../../../db/processes/outbox.ts';
import { createTenantDomainQueries } from '../../../../db/tenants/domains/queries.ts';
import type { Tenant } from '../../../../db/tenants/tenants/rows.ts';
import type { TenantDomain } from '../../../../db/tenants/domains/rows.ts';
import { conflict, notFound } from '../../../errors.ts';
import type { Caller } from '../../../access/caller.ts';
import { reachableTenant } from '../../../access/reach.ts';

export interface TenantDomainServiceDeps {
  pool: DatabasePool;
  dnsServers: string[];
  verification: { intervalsMs: number[]; giveUpAfterMs: number };
}

export const CHALLENGE_LABEL = '_iam-challenge';
const newToken = () => `iam-domain-verification=${randomBytes(24).toString('base64url')}`;
const duplicate = (domain: string) => conflict('tenant_domain.already_exists', `The domain ${domain} is already added to this tenant.`);

export function createTenantDomainService(deps: TenantDomainServiceDeps) {
  const { pool } = deps;

  const find = async (db: Parameters<typeof createTenantDomainQueries>[0], caller: Caller, tenantId: string, id: string) => {
    const tenant = await reachableTenant(db, caller, tenantId);
    const domain = await createTenantDomainQueries(db).findDomain(tenantId, id);
    if (!domain) throw notFound('tenant_domain', id);
    return { tenant, domain };
  };
  const audit = (caller: Caller, tenant: Tenant, verb: 'create' | 'delete', domain: TenantDomain) => ({
    actor: caller.actor,
    origin: caller.origin,
    action: `tenant.domain.${verb}`,
    resource: { type: 'tenant_domain', id: domain.id },
    scope: { organizationId: tenant.organizationIds[0] ?? null, tenantId: tenant.id },
    before: verb === 'delete' ? domain : null,
    after: verb === 'create' ? domain : null,
  });

  return {
    list: async (caller: Caller, tenantId: string, page: { limit: number; offset: number }) => {
      await reachableTenant(pool, caller, tenantId);
      return createTenantDomainQueries(pool).findDomains(tenantId, page);
    },

    create: async (caller: Caller, tenantId: string, input: { domain: string; validationMethod: 'dns_txt' }) => {
      const tenant = await reachableTenant(pool, caller, tenantId);
      if (await createTenantDomainQueries(pool).existsInTenant(tenantId, input.domain)) throw duplicate(input.domain);
      try {
        return await pool.transaction(async (trx) => {
          const domain = await createTenantDomainQueries(trx).insertDomain({
            tenantId,
            domain: input.domain,
            validationMethod: input.validationMethod,
            validationSubDomain: `${CHALLENGE_LABEL}.${input.domain}`,
            validationToken: newToken(),
          });
          await recordChange(trx, { ...audit(caller, tenant, 'create', domain), event: { type: 'tenant.domain.created', data: { domain } } });
          await createProcessOutboxQueries(trx).enqueueStart({
            kind: 'domain-verification',
            entityId: domain.id,
            tenantId,
            input: { domainId: domain.id, intervalsMs: deps.verification.intervalsMs, giveUpAfterMs: deps.verification.giveUpAfterMs },
          });
          return domain;
        });
      } catch (error) {
        if (error instanceof UniqueIntegrityConstraintViolationError) throw duplicate(input.domain); // added concurrently
        throw error;
      }
    },

    remove: (caller: Caller, tenantId: string, id: string) =>
      pool.transaction(async (trx) => {
        const { tenant, domain } = await find(trx, caller, tenantId, id);
        await createTenantDomainQueries(trx).deleteDomain(id);
        await recordChange(trx, { ...audit(caller, tenant, 'delete', domain), event: { type: 'tenant.domain.deleted', data: { domain } } });
        return domain; // its verification process ends at its next check
      }),

    verify: async (caller: Caller, tenantId: string, id: string) => {
      await find(pool, caller, tenantId, id);
      return verifyDomainNow(deps, id, { actor: caller.actor, origin: caller.origin });
    },
  };
}

export type TenantDomainService = ReturnType<typeof createTenantDomainService>;
