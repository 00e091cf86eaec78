// DNS TXT lookups with a configurable resolver (tenant domain verification).
import { Resolver } from 'node:dns/promises';

export type TxtLookup = { status: 'found' } | { status: 'missing' | 'mismatch' | 'error'; message: string };

/** Looks for a TXT record at `name` whose value (its strings joined) equals `token`. */
export async function lookupTxtToken(name: string, token: string, dnsServers: string[]): Promise<TxtLookup> {
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  if (dnsServers.length) resolver.setServers(dnsServers);
  let records: string[][];
  try {
    records = await resolver.resolveTxt(name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENODATA' || code === 'ENOTFOUND') return { status: 'missing', message: `No TXT record found at ${name}.` };
    return { status: 'error', message: `The DNS lookup of ${name} failed (${code ?? 'error'}); try again later.` };
  }
  const values = records.map((chunks) => chunks.join('').trim());
  if (values.includes(token)) return { status: 'found' };
  if (values.length === 0) return { status: 'missing', message: `No TXT record found at ${name}.` };
  return { status: 'mismatch', message: `The TXT record at ${name} does not match the validation token.` };
}
