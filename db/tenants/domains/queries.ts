import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { TenantDomain } from './rows.ts';
import { selectPage, type PageRequest } from '../../shared/pages.ts';

const columns = sql.fragment`
  d.id, d.tenant_id AS "tenantId", d.domain, d.validation_method AS "validationMethod", d.verified,
  d.validation_sub_domain AS "validationSubDomain", d.validation_token AS "validationToken",
  d.created_at AS "createdAt", d.validated_at AS "validatedAt", d.updated_at AS "updatedAt"`;

export interface NewTenantDomain {
  tenantId: string;
  domain: string;
  validationMethod: 'dns_txt';
  validationSubDomain: string;
  validationToken: string;
}

/** The domains of one tenant, for requests: every statement is bound to `tenantId`. */
export function createTenantDomainQueries(db: CommonQueryMethods, tenantId: string) {
  return {
    findDomain: (id: string) => db.maybeOne(sql.type(TenantDomain)`SELECT ${columns} FROM tenant_domains d WHERE d.id = ${id} AND d.tenant_id = ${tenantId}`),

    findDomains: (page: PageRequest) =>
      selectPage(
        db,
        TenantDomain,
        sql.fragment`SELECT ${columns} FROM tenant_domains d WHERE d.tenant_id = ${tenantId}`,
        sql.fragment`d.created_at, d.id`,
        page,
      ),

    existsInTenant: async (domain: string) =>
      (await db.maybeOneFirst(sql.type(z.object({ one: z.number() }))`
        SELECT 1 AS one FROM tenant_domains WHERE tenant_id = ${tenantId} AND domain = ${domain}`)) !== null,

    insertDomain: (d: Omit<NewTenantDomain, 'tenantId'>) =>
      db.one(sql.type(TenantDomain)`
        INSERT INTO tenant_domains AS d (tenant_id, domain, validation_method, validation_sub_domain, validation_token)
        VALUES (${tenantId}, ${d.domain}, ${d.validationMethod}, ${d.validationSubDomain}, ${d.validationToken})
        RETURNING ${columns}`),

    deleteDomain: (id: string) => db.query(sql.unsafe`DELETE FROM tenant_domains WHERE tenant_id = ${tenantId} AND id = ${id}`),
  };
}

// unscoped: verification decides on the one domain it was asked about (by the verification process it was started
// for, or by a request that found the domain in its tenant first), by id.
export function createDomainVerificationQueries(db: CommonQueryMethods) {
  return {
    findDomainById: (id: string) => db.maybeOne(sql.type(TenantDomain)`SELECT ${columns} FROM tenant_domains d WHERE d.id = ${id}`),

    /** Locks the row for a verification decision; null when it was deleted. */
    lockDomainById: (id: string) => db.maybeOne(sql.type(TenantDomain)`SELECT ${columns} FROM tenant_domains d WHERE d.id = ${id} FOR UPDATE`),

    /** Whether another tenant holds `domain` verified. */
    verifiedElsewhere: async (domain: string, tenantId: string) =>
      (await db.maybeOneFirst(sql.type(z.object({ one: z.number() }))`
        SELECT 1 AS one FROM tenant_domains WHERE domain = ${domain} AND verified AND tenant_id <> ${tenantId}`)) !== null,

    /** Marks the domain verified once; null when it was already verified (or deleted). */
    markVerified: (id: string) =>
      db.maybeOne(sql.type(TenantDomain)`
        UPDATE tenant_domains AS d SET verified = true, validated_at = now(), verification_failed_at = NULL, updated_at = now()
        WHERE d.id = ${id} AND NOT d.verified RETURNING ${columns}`),

    /** Records that the verification process gave up, once; null when verified, deleted or already recorded. */
    markVerificationFailed: (id: string) =>
      db.maybeOne(sql.type(TenantDomain)`
        UPDATE tenant_domains AS d SET verification_failed_at = now(), updated_at = now()
        WHERE d.id = ${id} AND NOT d.verified AND d.verification_failed_at IS NULL RETURNING ${columns}`),
  };
}
