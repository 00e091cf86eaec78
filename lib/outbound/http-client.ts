// One outbound POST (webhook delivery, notification). Never throws for HTTP or network outcomes.
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import type { Agent } from 'undici';
import { checkOutboundUrl, OutboundUrlError } from './ssrf-guard.ts';
import type { LookupFn } from './ssrf-guard.ts';
import { undici } from './undici.ts';

export type OutboundResult = {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  responseExcerpt: string | null;
  retryAfterMs: number | null;
  headers: Record<string, string>;
};

export type OutboundOptions = {
  timeoutMs: number;
  allowPrivate: boolean;
  lookup?: LookupFn;
  maxResponseBytes?: number;
};

// Agents are keyed by the validated address set and their socket lookup answers only those
// addresses, so connecting never re-resolves DNS (a rebinding answer cannot slip in between the
// check and the connect). undici pools per origin inside an agent, so two hostnames sharing an
// address keep their own Host/SNI. The cache is bounded; evicted agents close gracefully.
const MAX_AGENTS = 64;
const agents = new Map<string, Agent>();

function pinnedAgent(AgentClass: typeof Agent, addresses: string[]): Agent {
  const key = addresses.join(',');
  let agent = agents.get(key);
  if (agent) {
    agents.delete(key); // re-insert to keep the map in least-recently-used order
  } else {
    const answers = addresses.map((address) => ({ address, family: net.isIP(address) }));
    const lookup: LookupFunction = (_hostname, options, callback) => {
      if (options.all) callback(null, answers);
      else callback(null, answers[0]!.address, answers[0]!.family);
    };
    agent = new AgentClass({ connect: { lookup } });
  }
  agents.set(key, agent);
  if (agents.size > MAX_AGENTS) {
    const [oldestKey, oldest] = agents.entries().next().value!;
    agents.delete(oldestKey);
    void oldest.close();
  }
  return agent;
}

export function parseRetryAfter(value: string | undefined, nowMs = Date.now()): number | null {
  if (value === undefined || value.trim() === '') return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? null : Math.max(0, date - nowMs);
}

function describeNetworkError(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string }; errors?: { code?: string }[] };
  const code = e.code ?? e.cause?.code ?? e.errors?.[0]?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset by peer';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return 'connect timeout';
    default:
      return code ? `${code}: ${e.message ?? 'network error'}` : (e.message ?? 'network error');
  }
}

export async function postOutbound(url: string, body: Buffer | string, headers: Record<string, string>, options: OutboundOptions): Promise<OutboundResult> {
  const started = performance.now();
  const maxBytes = options.maxResponseBytes ?? 2048;
  const result = (partial: Partial<OutboundResult>): OutboundResult => ({
    ok: false,
    statusCode: null,
    error: null,
    responseExcerpt: null,
    retryAfterMs: null,
    headers: {},
    ...partial,
    durationMs: Math.round(performance.now() - started),
  });

  let addresses: string[];
  try {
    ({ addresses } = await checkOutboundUrl(url, { allowPrivate: options.allowPrivate, lookup: options.lookup }));
  } catch (err) {
    if (err instanceof OutboundUrlError) return result({ error: err.message });
    throw err;
  }

  const { Agent: AgentClass, request } = await undici();
  // One deadline for connect, headers and the excerpt read.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  let statusCode: number | null = null; // kept when the body read fails after the headers arrived
  try {
    const res = await request(url, {
      method: 'POST',
      body,
      headers,
      dispatcher: pinnedAgent(AgentClass, addresses),
      signal: controller.signal,
    });
    statusCode = res.statusCode;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= maxBytes) break; // breaking out destroys the rest of the body
    }
    const responseHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(res.headers)) {
      if (value !== undefined) responseHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return result({
      ok: res.statusCode >= 200 && res.statusCode < 300,
      statusCode: res.statusCode,
      responseExcerpt: Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8'),
      retryAfterMs: parseRetryAfter(responseHeaders['retry-after']),
      headers: responseHeaders,
    });
  } catch (err) {
    const error = controller.signal.aborted ? `timeout after ${options.timeoutMs} ms` : describeNetworkError(err);
    return result({ statusCode, error });
  } finally {
    clearTimeout(timer);
  }
}
