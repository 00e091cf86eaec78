// A real MCP server on a local port, built with the official SDK (McpServer over Streamable HTTP, stateless: a
// server and transport per request, as the SDK's examples do). Its tools/list answers the tools the test sets, as
// plain objects (so the test knows the exact JSON sent), `pageSize` at a time with a cursor.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export interface TestMcpServer {
  url: string;
  /** Replaces what tools/list answers from the next request on. */
  setTools(tools: Record<string, unknown>[], pageSize?: number): void;
  /** tools/list requests answered so far. */
  listCalls: number;
  close(): Promise<void>;
}

/** `sse`: answer POSTs with an SSE stream (the transport's default) rather than a JSON body. */
export async function startMcpServer(initial: Record<string, unknown>[] = [], options: { sse?: boolean } = {}): Promise<TestMcpServer> {
  let tools = initial;
  let pageSize = Infinity;
  const state = { listCalls: 0 };
  const build = () => {
    const mcp = new McpServer({ name: 'test-tools', version: '1.0.0' }, { capabilities: { tools: {} } });
    mcp.server.setRequestHandler(ListToolsRequestSchema, (request) => {
      state.listCalls++;
      const from = Number(request.params?.cursor ?? 0);
      const page = tools.slice(from, from + pageSize);
      const next = from + page.length;
      return { tools: page as never, ...(next < tools.length ? { nextCursor: String(next) } : {}) };
    });
    return mcp;
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const mcp = build();
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !options.sse });
        res.on('close', () => void transport.close().then(() => mcp.close()));
        await mcp.connect(transport);
        const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown) : undefined;
        await transport.handleRequest(req, res, body);
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    setTools: (next, size = Infinity) => {
      tools = next;
      pageSize = size;
    },
    get listCalls() {
      return state.listCalls;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
