// A vanity domain as the API shows it: the DNS records to create, the status of its process and the facts of its
// certificate (never the key). Queries read the flat row (VanityDomainRow) and present it (toVanityDomain).
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../shared/rows.ts';

export const VANITY_STATUSES = ['pending_dns', 'issuing', 'active', 'failed', 'renewing'] as const;
export type VanityStatus = (typeof VANITY_STATUSES)[number];

const at = z.union([z.date(), z.number(), z.string()]).transform((v) => new Date(v).toISOString());
const atOrNull = at.nullable();

export const VanityDomainRow = z.object({
  id: uuid,
  environmentId: uuid,
  tenantId: uuid,
  hostname: z.string(),
  status: z.enum(VANITY_STATUSES),
  failureReason: z.string().nullable(),
  cnameTarget: z.string(),
  txtName: z.string(),
  txtValue: z.string(),
  dnsCheckingSince: at,
  dnsVerifiedAt: atOrNull,
  certificateNotBefore: atOrNull,
  certificateNotAfter: atOrNull,
  certificateSerial: z.string().nullable(),
  certificateFingerprint: z.string().nullable(),
  certificateIssuer: z.string().nullable(),
  certificateIssuedAt: atOrNull,
  renewals: z.number(),
  removingAt: atOrNull,
  createdAt: at,
  updatedAt: at,
});
export type VanityDomainRow = z.infer<typeof VanityDomainRow>;

const DnsRecord = z
  .object({
    type: z.enum(['CNAME', 'TXT']),
    name: z.string().describe('The record name (fully qualified, no trailing dot)'),
    value: z.string().describe('The record value'),
    purpose: z.string().describe('What the record is for'),
  })
  .meta({ id: 'VanityDomainDnsRecord' });

export const VanityCertificate = z
  .object({
    notBefore: isoTimestamp,
    notAfter: isoTimestamp,
    serialNumber: z.string().describe('Hexadecimal, uppercase, as `openssl x509 -serial` prints it'),
    fingerprintSha256: z.string().describe('SHA-256 fingerprint of the leaf, colon-separated hex'),
    issuer: z.string().describe('The issuer of the leaf certificate (distinguished name)'),
    issuedAt: isoTimestamp.describe('When the service obtained it'),
    renewals: z.number().int().describe('How many times the certificate was renewed'),
  })
  .meta({ id: 'VanityCertificate' });

export const VanityDomain = z
  .object({
    id: uuid,
    environmentId: uuid,
    hostname: z.string().describe('The vanity host, lowercase, without a trailing dot (e.g. login.example.com)'),
    status: z
      .enum(VANITY_STATUSES)
      .describe('`pending_dns` (waiting for the records), `issuing`, `active` (served over TLS), `renewing`, `failed` (see failureReason)'),
    failureReason: z.string().nullable().describe('Why the domain failed, in a sentence; null unless `failed`'),
    dnsRecords: z.array(DnsRecord).describe('The records to create at your DNS provider'),
    dnsVerifiedAt: nullableTimestamp.describe('When the records were last found'),
    certificate: VanityCertificate.nullable().describe('The certificate served for the host (the key is never shown); null until issued'),
    issuer: z.string().describe('The OpenID issuer of the environment on this host, once active'),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'VanityDomain' });
export type VanityDomain = z.infer<typeof VanityDomain>;

export function toVanityDomain(row: VanityDomainRow): VanityDomain {
  const certificate =
    row.certificateSerial && row.certificateNotBefore && row.certificateNotAfter && row.certificateIssuedAt
      ? {
          notBefore: row.certificateNotBefore,
          notAfter: row.certificateNotAfter,
          serialNumber: row.certificateSerial,
          fingerprintSha256: row.certificateFingerprint ?? '',
          issuer: row.certificateIssuer ?? '',
          issuedAt: row.certificateIssuedAt,
          renewals: row.renewals,
        }
      : null;
  return {
    id: row.id,
    environmentId: row.environmentId,
    hostname: row.hostname,
    status: row.status,
    failureReason: row.failureReason,
    dnsRecords: [
      { type: 'CNAME', name: row.hostname, value: row.cnameTarget, purpose: 'Routes the host to this service' },
      { type: 'TXT', name: row.txtName, value: row.txtValue, purpose: 'Proves that you own the host' },
    ],
    dnsVerifiedAt: row.dnsVerifiedAt,
    certificate,
    issuer: `https://${row.hostname}/v1/oidc/${row.environmentId}`,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
