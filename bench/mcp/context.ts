// What `npm run bench:mcp` hands each MCP benchmark: the running service (real app over an embedded Postgres, on a
// local port), the load generator in its child process, and a seeded environment with an API secret of purpose mcp.
import type { startBenchApp } from '../app.ts';
import type { startLoadWorker } from '../load-worker.ts';

export interface McpBenchContext {
  service: Awaited<ReturnType<typeof startBenchApp>>;
  /** http://127.0.0.1:<port> of the service. */
  url: string;
  loader: ReturnType<typeof startLoadWorker>;
  environmentId: string;
  /** An environment API secret (adenv_…) of the environment, with the purposes authzen and mcp. */
  secret: string;
  /** Subjects of the seeded trust-store entries (each with an active key). */
  subjects: string[];
  /** Things to close after the run, in reverse order. */
  cleanups: (() => Promise<unknown>)[];
}
