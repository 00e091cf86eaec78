// Reads an MCP server's tool manifest the way a client would: the official SDK's Client over Streamable HTTP,
// through the SSRF guard, under one deadline, every page of tools/list. The `tools` are kept as the server sent
// them (a permissive result schema: the SDK's own would drop fields it does not know, changing the hash).
import type * as McpClient from '@modelcontextprotocol/sdk/client/index.js';
import type * as McpHttp from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { z } from 'zod';
import { guardedFetch } from '../outbound/guarded-fetch.ts';
import { OutboundUrlError, type LookupFn } from '../outbound/ssrf-guard.ts';

/** Pages of tools/list read at most, and tools in all (a server that keeps paging or listing is cut off). */
const MAX_PAGES = 100;
const MAX_TOOLS = 10_000;

const ToolsPage = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });

// The SDK's client is loaded on the first manifest read and kept afterwards (idle memory of an instance that never reads one).
let sdk: Promise<[typeof McpClient, typeof McpHttp]> | undefined;
const loadSdk = () =>
  (sdk ??= Promise.all([import('@modelcontextprotocol/sdk/client/index.js'), import('@modelcontextprotocol/sdk/client/streamableHttp.js')]));

export type ListToolsResult = { ok: true; tools: unknown[] } | { ok: false; reason: 'refused' | 'timeout' | 'failed'; error: string };

export async function listMcpTools(url: string, options: { timeoutMs: number; allowPrivate: boolean; lookup?: LookupFn }): Promise<ListToolsResult> {
  const [{ Client }, { StreamableHTTPClientTransport }] = await loadSdk();
  const fetch = guardedFetch({ allowPrivate: options.allowPrivate, lookup: options.lookup });
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch });
  const client = new Client({ name: 'iam-trust-store', version: '1.0.0' });
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
  });
  const work = async () => {
    const request = { signal: controller.signal, timeout: options.timeoutMs };
    await client.connect(transport, request);
    const tools: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, ToolsPage, request);
      tools.push(...result.tools);
      if (tools.length > MAX_TOOLS) throw new Error(`tools/list listed more than ${MAX_TOOLS} tools`);
      cursor = result.nextCursor;
      if (!cursor) return tools;
    }
    throw new Error(`tools/list still had more after ${MAX_PAGES} pages`);
  };
  try {
    return { ok: true, tools: await Promise.race([work(), deadline]) };
  } catch (error) {
    if (error instanceof OutboundUrlError) return { ok: false, reason: 'refused', error: error.message };
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: controller.signal.aborted ? 'timeout' : 'failed', error: message };
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
    await fetch.close();
  }
}
