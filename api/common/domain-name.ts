// What a public domain name is, shared by tenant domains, vanity domains and the SSO connections' home-realm `domains`.
import { z } from 'zod';
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

/**
 * A request field holding a public domain name: trimmed, lowercased, a trailing dot dropped, then checked by
 * domainProblem; `refine` adds a field's own rule (a vanity domain must be a subdomain).
 */
export const domainName = (max: number, refine?: (domain: string) => string | undefined) =>
  z
    .string()
    .max(max)
    .trim()
    .toLowerCase()
    .overwrite((v) => v.replace(/\.$/, ''))
    .superRefine((v, ctx) => {
      const problem = domainProblem(v) ?? refine?.(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
