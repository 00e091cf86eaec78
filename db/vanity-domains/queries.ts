import { sql, type CommonQueryMethods } from 'slonik';
import { selectPage, type PageRequest } from '../shared/pages.ts';
import { toVanityDomain, VanityDomainRow } from './rows.ts';

export const columns = sql.fragment`
  d.id, d.environment_id AS "environmentId", e.tenant_id AS "tenantId", d.hostname, d.status, d.failure_reason AS "failureReason",
  d.cname_target AS "cnameTarget", d.txt_name AS "txtName", d.txt_value AS "txtValue", d.dns_checking_since AS "dnsCheckingSince",
  d.dns_verified_at AS "dnsVerifiedAt", d.certificate_not_before AS "certificateNotBefore", d.certificate_not_after AS "certificateNotAfter",
  d.certificate_serial AS "certificateSerial", d.certificate_fingerprint AS "certificateFingerprint", d.certificate_issuer AS "certificateIssuer",
  d.certificate_issued_at AS "certificateIssuedAt", d.renewals, d.removing_at AS "removingAt", d.created_at AS "createdAt", d.updated_at AS "updatedAt"`;
export const from = sql.fragment`vanity_domains d JOIN environments e ON e.id = d.environment_id`;

export interface NewVanityDomain {
  hostname: string;
  cnameTarget: string;
  txtName: string;
  txtValue: string;
}

/** The vanity domains of one environment, for requests: every statement is bound to `environmentId`; one being removed is gone. */
export function createVanityDomainQueries(db: CommonQueryMethods, environmentId: string) {
  const find = async (id: string) => {
    const row = await db.maybeOne(sql.type(VanityDomainRow)`
      SELECT ${columns} FROM ${from} WHERE d.id = ${id} AND d.environment_id = ${environmentId} AND d.removing_at IS NULL`);
    return row && toVanityDomain(row);
  };
  return {
    find,

    /** The row under lock, for a change. */
    lock: (id: string) =>
      db.maybeOne(sql.type(VanityDomainRow)`
        SELECT ${columns} FROM ${from} WHERE d.id = ${id} AND d.environment_id = ${environmentId} AND d.removing_at IS NULL FOR UPDATE OF d`),

    list: async (page: PageRequest) => {
      const found = await selectPage(
        db,
        VanityDomainRow,
        sql.fragment`SELECT ${columns} FROM ${from} WHERE d.environment_id = ${environmentId} AND d.removing_at IS NULL`,
        sql.fragment`d.created_at, d.id`,
        page,
      );
      return { ...found, items: found.items.map(toVanityDomain) };
    },

    insert: async (d: NewVanityDomain) => {
      const { id } = await db.one(sql.type(VanityDomainRow.pick({ id: true }))`
        INSERT INTO vanity_domains (environment_id, hostname, cname_target, txt_name, txt_value)
        VALUES (${environmentId}, ${d.hostname}, ${d.cnameTarget}, ${d.txtName}, ${d.txtValue}) RETURNING id`);
      return (await find(id))!;
    },

    /** A failed domain goes back to pending_dns (its give-up time starts again); others keep their status. */
    recheck: async (id: string) => {
      await db.query(sql.unsafe`
        UPDATE vanity_domains SET status = 'pending_dns', failure_reason = NULL, dns_checking_since = now(), updated_at = now()
        WHERE id = ${id} AND environment_id = ${environmentId} AND status = 'failed'`);
      return (await find(id))!;
    },

    /** Marks the domain for removal: no longer listed nor served; its process revokes and deletes it. */
    markRemoving: (id: string) =>
      db.query(sql.unsafe`
        UPDATE vanity_domains SET removing_at = now(), updated_at = now() WHERE id = ${id} AND environment_id = ${environmentId} AND removing_at IS NULL`),
  };
}
