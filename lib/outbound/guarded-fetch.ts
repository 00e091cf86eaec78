// A fetch for clients that bring their own HTTP stack (the MCP SDK's transport): each request's URL passes the
// SSRF guard and is connected to exactly the checked addresses (no second DNS answer can slip in); redirects are
// not followed, so no hop escapes the check.
import type { Agent } from 'undici';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import { checkOutboundUrl, type LookupFn } from './ssrf-guard.ts';
import { undici } from './undici.ts';

export interface GuardedFetchOptions {
  allowPrivate: boolean;
  lookup?: LookupFn;
}

export type GuardedFetch = ((url: string | URL, init?: RequestInit) => Promise<Response>) & { close(): Promise<void> };

/** A fetch through the SSRF guard (OutboundUrlError for a refused target); `close()` drops its connections. */
export function guardedFetch(options: GuardedFetchOptions): GuardedFetch {
  const agents: Agent[] = [];
  const fetch = async (url: string | URL, init?: RequestInit) => {
    const { addresses } = await checkOutboundUrl(String(url), { allowPrivate: options.allowPrivate, lookup: options.lookup });
    const answers = addresses.map((address) => ({ address, family: net.isIP(address) }));
    const lookup: LookupFunction = (_hostname, o, callback) => {
      if (o.all) callback(null, answers);
      else callback(null, answers[0]!.address, answers[0]!.family);
    };
    const { Agent, fetch: undiciFetch } = await undici();
    const agent = new Agent({ connect: { lookup } });
    agents.push(agent);
    const response = await undiciFetch(url, { ...(init as object), redirect: 'manual', dispatcher: agent });
    return response as unknown as Response;
  };
  return Object.assign(fetch, { close: async () => void (await Promise.all(agents.splice(0).map((a) => a.destroy().catch(() => {})))) });
}
