// DNS CNAME lookups with a configurable resolver (vanity domains: the host must point at the service).
import { Resolver } from 'node:dns/promises';

export type CnameLookup = { status: 'found' } | { status: 'missing' | 'mismatch' | 'error'; message: string };

const normalize = (name: string) => name.toLowerCase().replace(/\.$/, '');

/** Whether `name` has a CNAME record pointing at `target`. */
export async function lookupCname(name: string, target: string, dnsServers: string[]): Promise<CnameLookup> {
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  if (dnsServers.length) resolver.setServers(dnsServers);
  let records: string[];
  try {
    records = await resolver.resolveCname(name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENODATA' || code === 'ENOTFOUND') return { status: 'missing', message: `No CNAME record found at ${name}.` };
    return { status: 'error', message: `The DNS lookup of ${name} failed (${code ?? 'error'}); try again later.` };
  }
  if (records.map(normalize).includes(normalize(target))) return { status: 'found' };
  return { status: 'mismatch', message: `The CNAME record at ${name} points at ${records.join(', ')}, not ${target}.` };
}
