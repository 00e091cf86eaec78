// The rules of the sign-up restrictions on an email address, pure: its domain against a list (a listed domain matches
// its subdomains too), a `+tag` sub-address, and a disposable-mail domain (the `disposable-email-domains-js` list,
// about 8,900 domains, read once into a Set on first use; a subdomain of a listed domain is disposable too).
import { disposableEmailBlocklistSet } from 'disposable-email-domains-js';

/** The domain of an address (after its last `@`), lowercased and without a trailing dot; null without one. */
export const emailDomainOf = (address: string): string | null => {
  const at = address.lastIndexOf('@');
  if (at < 1) return null;
  const domain = address
    .slice(at + 1)
    .trim()
    .toLowerCase()
    .replace(/\.+$/, '');
  return domain === '' ? null : domain;
};

/** The domain and each parent that still has a dot: `a.b.example.com`, `b.example.com`, `example.com`. */
export const domainAndParents = (domain: string): string[] => {
  const labels = domain.split('.');
  const out: string[] = [];
  for (let i = 0; i < labels.length - 1; i++) out.push(labels.slice(i).join('.'));
  return out.length === 0 ? [domain] : out;
};

/** Whether `domain` is one of `listed` (normalized, as `domainsOf` gives them) or a subdomain of one. */
export const domainListed = (domain: string, listed: readonly string[]) => listed.some((d) => domain === d || domain.endsWith(`.${d}`));

/** Whether the address's local part has a `+tag` sub-address (`ada+news@example.com`). */
export const hasSubaddress = (address: string) => {
  const at = address.lastIndexOf('@');
  return at > 0 && address.slice(0, at).includes('+');
};

let disposable: Set<string> | undefined;

/** Whether `domain` or one of its parents is a disposable-mail domain. */
export const isDisposableDomain = (domain: string) => {
  disposable ??= disposableEmailBlocklistSet();
  return domainAndParents(domain.toLowerCase()).some((d) => disposable!.has(d));
};

/** Why an address breaks the rules, in the order they are asked; null when it passes them all. */
export type EmailRuleBroken = 'domain_blocked' | 'domain_not_allowed' | 'subaddress' | 'disposable_domain';

export interface EmailRules {
  /** Domains refused (with their subdomains); null: no block list. */
  blocked: readonly string[] | null;
  /** The only domains accepted (with their subdomains); null: no allow list. */
  allowed: readonly string[] | null;
  subaddresses: boolean;
  disposable: boolean;
}

/** The first rule `address` breaks, or null. An address without a domain breaks an allow list and nothing else. */
export function brokenEmailRule(address: string, rules: EmailRules): EmailRuleBroken | null {
  const domain = emailDomainOf(address);
  if (domain && rules.blocked && domainListed(domain, rules.blocked)) return 'domain_blocked';
  if (rules.allowed && !(domain && domainListed(domain, rules.allowed))) return 'domain_not_allowed';
  if (rules.subaddresses && hasSubaddress(address)) return 'subaddress';
  if (domain && rules.disposable && isDisposableDomain(domain)) return 'disposable_domain';
  return null;
}
