// Outbound URL policy (DESIGN §6): webhooks, notification channels and metadata URLs must not
// reach private, loopback, link-local or otherwise non-public targets unless explicitly allowed.
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** Resolves a hostname to every address it answers with (IPv4 and IPv6, textual form). */
export type LookupFn = (hostname: string) => Promise<string[]>;

export class OutboundUrlError extends Error {
  readonly reason: string;
  constructor(reason: string, message: string) {
    super(message);
    this.name = 'OutboundUrlError';
    this.reason = reason;
  }
}

const LABELS: Record<string, string> = {
  private: 'private',
  loopback: 'loopback',
  linkLocal: 'link-local',
  uniqueLocal: 'unique-local',
  carrierGradeNat: 'carrier-grade NAT',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
};

// RFC 8215 local-use NAT64 (64:ff9b:1::/48): a network's own translator may put the IPv4 address anywhere in the
// low 80 bits (RFC 6052 allows /48 to /96 prefixes), so no fixed slice tells where the packet ends up. Refuse it all.
const LOCAL_USE_NAT64 = ipaddr.IPv6.parseCIDR('64:ff9b:1::/48');

// IPv6 ranges whose low bits embed an IPv4 address that the packet may end up at.
const EMBEDS_V4_LOW32 = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052']);

/** Why an address is refused ("loopback", "private", …), or null when it is public unicast. */
function forbiddenKind(ip: string): string | null {
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(ip);
  } catch {
    return 'unparseable'; // fail closed
  }
  if (addr.kind() === 'ipv6') {
    const v6 = addr as ipaddr.IPv6;
    const range = v6.range();
    const p = v6.parts;
    if (v6.match(LOCAL_USE_NAT64)) return 'local-use NAT64';
    if (EMBEDS_V4_LOW32.has(range)) {
      return forbiddenKind(`${p[6]! >> 8}.${p[6]! & 255}.${p[7]! >> 8}.${p[7]! & 255}`);
    }
    if (range === '6to4') return forbiddenKind(`${p[1]! >> 8}.${p[1]! & 255}.${p[2]! >> 8}.${p[2]! & 255}`);
    // ::/8 outside :: and ::1 holds the deprecated IPv4-compatible form; nothing public lives there.
    if (range === 'unicast' && p[0]! < 0x100) return 'reserved';
    return range === 'unicast' ? null : (LABELS[range] ?? 'reserved');
  }
  if (addr.toString() === '169.254.169.254') return 'cloud metadata';
  const range = addr.range(); // 0.0.0.0/8 is 'unspecified'; 240/4, TEST-NETs… are 'reserved'
  return range === 'unicast' ? null : (LABELS[range] ?? 'reserved');
}

/** Names the setting that allows private targets, so a refused local receiver says how to allow it. */
export const PRIVATE_TARGETS_HINT =
  'outbound calls to private networks are refused (set ALLOW_PRIVATE_NETWORK_TARGETS=true to allow them, e.g. for a receiver on this machine)';

export function isForbiddenAddress(ip: string): boolean {
  return forbiddenKind(ip) !== null;
}

const defaultLookup: LookupFn = async (hostname) => {
  const answers = await dns.promises.lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => a.address);
};

/**
 * Validates an outbound URL and resolves its host. Returns the addresses that were checked, so the
 * caller can connect to exactly those (see http-client.ts) instead of resolving again.
 */
export async function checkOutboundUrl(url: string, options: { allowPrivate: boolean; lookup?: LookupFn }): Promise<{ url: URL; addresses: string[] }> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new OutboundUrlError('invalid_url', 'url is not a valid absolute URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new OutboundUrlError('scheme', `url scheme ${parsed.protocol.slice(0, -1)} is not allowed; use http or https`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new OutboundUrlError('credentials', 'url must not contain credentials (user:password@)');
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = net.isIP(host) !== 0;
  let addresses: string[];
  if (literal) {
    addresses = [host];
  } else {
    try {
      addresses = await (options.lookup ?? defaultLookup)(host);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw new OutboundUrlError('unresolvable', `url host ${host} could not be resolved (${code})`);
    }
    if (addresses.length === 0) {
      throw new OutboundUrlError('unresolvable', `url host ${host} could not be resolved (no addresses)`);
    }
  }
  if (!options.allowPrivate) {
    for (const address of addresses) {
      const kind = forbiddenKind(address);
      if (kind !== null) {
        const verb = literal ? 'points to' : 'resolves to';
        throw new OutboundUrlError('forbidden_address', `url ${verb} ${address}, a ${kind} address; ${PRIVATE_TARGETS_HINT}`);
      }
    }
  }
  return { url: parsed, addresses };
}
