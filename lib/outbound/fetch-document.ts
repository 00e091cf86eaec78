// One outbound GET of a small document (SAML IdP metadata, OIDC discovery) through the SSRF guard: every
// hop, redirects included, is checked and connected to exactly the checked addresses; one deadline covers
// the whole exchange; the body is capped. Never throws for HTTP or network outcomes.
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import type { Agent } from 'undici';
import { checkOutboundUrl, OutboundUrlError, type LookupFn } from './ssrf-guard.ts';
import { undici } from './undici.ts';

export interface FetchDocumentOptions {
  timeoutMs: number;
  maxBytes: number;
  allowPrivate: boolean;
  lookup?: LookupFn;
  accept?: string;
  maxRedirects?: number;
}

export type FetchFailure = 'refused' | 'timeout' | 'too_large' | 'status' | 'redirects' | 'network';

export type FetchDocumentResult =
  | { ok: true; url: string; statusCode: number; contentType: string | null; body: string }
  | { ok: false; reason: FetchFailure; statusCode: number | null; error: string };

/** An agent whose lookup answers only the addresses the guard checked, so DNS is never asked again. */
function pinnedAgent(AgentClass: typeof Agent, addresses: string[]): Agent {
  const answers = addresses.map((address) => ({ address, family: net.isIP(address) }));
  const lookup: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, answers);
    else callback(null, answers[0]!.address, answers[0]!.family);
  };
  return new AgentClass({ connect: { lookup } });
}

function describeNetworkError(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset by peer';
  return code ? `${code}: ${e.message ?? 'network error'}` : (e.message ?? 'network error');
}

const MiB = 1024 * 1024;
const size = (bytes: number) => (bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes} bytes`);

export async function fetchDocument(url: string, options: FetchDocumentOptions): Promise<FetchDocumentResult> {
  const fail = (reason: FetchFailure, error: string, statusCode: number | null = null): FetchDocumentResult => ({ ok: false, reason, statusCode, error });
  const maxRedirects = options.maxRedirects ?? 3;
  const { Agent: AgentClass, request } = await undici();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  let current = url;
  try {
    for (let hop = 0; ; hop++) {
      let addresses: string[];
      try {
        ({ addresses } = await checkOutboundUrl(current, { allowPrivate: options.allowPrivate, lookup: options.lookup }));
      } catch (err) {
        if (err instanceof OutboundUrlError) return fail('refused', hop === 0 ? err.message : `redirect to ${current} refused: ${err.message}`);
        throw err;
      }
      const agent = pinnedAgent(AgentClass, addresses);
      try {
        const res = await request(current, {
          method: 'GET',
          headers: { accept: options.accept ?? '*/*' },
          dispatcher: agent,
          signal: controller.signal,
        });
        const location = res.headers.location;
        if (res.statusCode >= 300 && res.statusCode < 400 && typeof location === 'string') {
          await res.body.dump();
          if (hop >= maxRedirects) return fail('redirects', `more than ${maxRedirects} redirects`, res.statusCode);
          current = new URL(location, current).toString();
          continue;
        }
        if (Number(res.headers['content-length']) > options.maxBytes) {
          res.body.destroy();
          return fail('too_large', `the document is larger than ${size(options.maxBytes)}`, res.statusCode);
        }
        const chunks: Buffer[] = [];
        let total = 0;
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          total += chunk.length;
          if (total > options.maxBytes) return fail('too_large', `the document is larger than ${size(options.maxBytes)}`, res.statusCode);
          chunks.push(chunk);
        }
        if (res.statusCode < 200 || res.statusCode >= 300) return fail('status', `answered HTTP ${res.statusCode}`, res.statusCode);
        const contentType = res.headers['content-type'];
        return {
          ok: true,
          url: current,
          statusCode: res.statusCode,
          body: Buffer.concat(chunks).toString('utf8'),
          contentType: typeof contentType === 'string' ? contentType : null,
        };
      } finally {
        await agent.destroy().catch(() => {});
      }
    }
  } catch (err) {
    if (controller.signal.aborted) return fail('timeout', `no answer within ${options.timeoutMs / 1000} s`);
    return fail('network', describeNetworkError(err));
  } finally {
    clearTimeout(timer);
  }
}
