// What the vanity-domain process (activities/vanity-domains.ts) and the TLS listener read and write.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { columns, from } from './queries.ts';
import { VanityDomainRow } from './rows.ts';

const Secrets = z.object({ chain: z.string().nullable(), keySealed: z.string().nullable() });
const Served = z.object({ id: z.uuid(), environmentId: z.uuid(), chain: z.string(), keySealed: z.string() });

export interface IssuedCertificate {
  chain: string;
  keySealed: string;
  notBefore: string;
  notAfter: string;
  serial: string;
  fingerprint: string;
  issuer: string;
}

// unscoped: the process acts on the one domain it was started for, by id (the row it owns).
export function createVanityProcessQueries(db: CommonQueryMethods) {
  const update = (id: string, set: ReturnType<typeof sql.fragment>, where = sql.fragment`TRUE`) =>
    db.maybeOne(sql.type(VanityDomainRow)`
      WITH u AS (UPDATE vanity_domains SET ${set}, updated_at = now() WHERE id = ${id} AND removing_at IS NULL AND ${where} RETURNING *)
      SELECT ${columns} FROM u d JOIN environments e ON e.id = d.environment_id`);
  return {
    /** The row, removing or not; null once deleted. */
    lock: (id: string) => db.maybeOne(sql.type(VanityDomainRow)`SELECT ${columns} FROM ${from} WHERE d.id = ${id} FOR UPDATE OF d`),
    find: (id: string) => db.maybeOne(sql.type(VanityDomainRow)`SELECT ${columns} FROM ${from} WHERE d.id = ${id}`),
    secrets: (id: string) =>
      db.maybeOne(sql.type(Secrets)`SELECT certificate_chain AS chain, certificate_key_sealed AS "keySealed" FROM vanity_domains WHERE id = ${id}`),

    markDnsVerified: (id: string) =>
      update(id, sql.fragment`status = 'issuing', dns_verified_at = now(), failure_reason = NULL`, sql.fragment`status = 'pending_dns'`),
    markFailed: (id: string, reason: string) =>
      update(id, sql.fragment`status = 'failed', failure_reason = ${reason}`, sql.fragment`status IN ('pending_dns', 'issuing', 'renewing')`),
    markRenewing: (id: string) => update(id, sql.fragment`status = 'renewing'`, sql.fragment`status = 'active'`),
    storeCertificate: (id: string, c: IssuedCertificate, renewed: boolean) =>
      update(
        id,
        sql.fragment`status = 'active', failure_reason = NULL, certificate_chain = ${c.chain}, certificate_key_sealed = ${c.keySealed},
          certificate_not_before = ${c.notBefore}, certificate_not_after = ${c.notAfter}, certificate_serial = ${c.serial},
          certificate_fingerprint = ${c.fingerprint}, certificate_issuer = ${c.issuer}, certificate_issued_at = now(),
          renewals = renewals + ${renewed ? 1 : 0}`,
        sql.fragment`status IN ('issuing', 'renewing')`,
      ),
    remove: (id: string) => db.query(sql.unsafe`DELETE FROM vanity_domains WHERE id = ${id} AND removing_at IS NOT NULL`),
  };
}

// unscoped: the TLS listener picks a certificate by the host name a client asks for (SNI), before any request.
export function createVanityServedQueries(db: CommonQueryMethods) {
  return {
    /** The certificate served for `hostname`: a domain with a certificate that is not being removed and has not expired. */
    byHostname: (hostname: string) =>
      db.maybeOne(sql.type(Served)`
        SELECT id, environment_id AS "environmentId", certificate_chain AS chain, certificate_key_sealed AS "keySealed" FROM vanity_domains
        WHERE hostname = ${hostname} AND removing_at IS NULL AND certificate_chain IS NOT NULL AND certificate_not_after > now()`),
  };
}
