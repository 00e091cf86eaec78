// Tenant domains: a tenant claims a domain and proves it with a DNS TXT record. Adding one starts its
// verification process (through the outbox, in the same transaction); POST …/verify checks at once with the
// same function the process runs.
import { randomBytes } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { verifyDomainNow } from '../../../../db/tenants/domains/verification.ts';
import { createProcessOutboxQueries } from '../../../../db/processes/outbox.ts';
import { createTenantDomainQueries } from '../../../../db/tenants/domains/queries.ts';
import type { TenantDomain } from '../../../../db/tenants/domains/rows.ts';
import { conflict, orNotFound } from '../../../errors.ts';
import { record, type CallerChange, type TenantCaller } from '../../../access/caller.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';

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

  const find = (db: Parameters<typeof createTenantDomainQueries>[0], caller: TenantCaller, id: string) =>
    orNotFound(createTenantDomainQueries(db, caller.scope.tenant.id).findDomain(id), 'tenant_domain', id);
  const audit = (verb: 'create' | 'delete', domain: TenantDomain): Omit<CallerChange, 'event'> => ({
    action: `tenant.domain.${verb}`,
    resource: { type: 'tenant_domain', id: domain.id },
    before: verb === 'delete' ? domain : null,
    after: verb === 'create' ? domain : null,
  });

  return {
    list: (caller: TenantCaller, query: PageQuery) =>
      listPage('domains', query, (page) => createTenantDomainQueries(pool, caller.scope.tenant.id).findDomains(page)),

    create: async (caller: TenantCaller, input: { domain: string; validationMethod: 'dns_txt' }) => {
      const tenantId = caller.scope.tenant.id;
      if (await createTenantDomainQueries(pool, tenantId).existsInTenant(input.domain)) throw duplicate(input.domain);
      // A concurrent add of the same domain is a unique violation, answered 409 tenant_domain.already_exists
      // (db/shared/database-errors.ts).
      return pool.transaction(async (trx) => {
        const domain = await createTenantDomainQueries(trx, tenantId).insertDomain({
          domain: input.domain,
          validationMethod: input.validationMethod,
          validationSubDomain: `${CHALLENGE_LABEL}.${input.domain}`,
          validationToken: newToken(),
        });
        await record(trx, caller, { ...audit('create', domain), event: { type: 'tenant.domain.created', data: { domain } } });
        await createProcessOutboxQueries(trx).enqueueStart({
          kind: 'domain-verification',
          entityId: domain.id,
          tenantId,
          input: { domainId: domain.id, intervalsMs: deps.verification.intervalsMs, giveUpAfterMs: deps.verification.giveUpAfterMs },
        });
        return domain;
      });
    },

    remove: (caller: TenantCaller, id: string) =>
      pool.transaction(async (trx) => {
        const domain = await find(trx, caller, id);
        await createTenantDomainQueries(trx, caller.scope.tenant.id).deleteDomain(id);
        await record(trx, caller, { ...audit('delete', domain), event: { type: 'tenant.domain.deleted', data: { domain } } });
        return domain; // its verification process ends at its next check
      }),

    verify: async (caller: TenantCaller, id: string) => {
      await find(pool, caller, id);
      return verifyDomainNow(deps, id, { actor: caller.actor, origin: caller.origin });
    },
  };
}

export type TenantDomainService = ReturnType<typeof createTenantDomainService>;
