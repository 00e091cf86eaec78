// The real app over a given database, bootstrapped as on a first start, with the embedded process engine
// (DBOS) and the event dispatcher running in this process, as `npm start` has them. Unlike bench/app.ts it
// exposes what the processes need (pool, config, master key) so a benchmark can commit events directly.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { assembleApp } from '../api/assemble.ts';
import type { BootstrapCredentials } from '../api/services/bootstrap.ts';
import { loadConfig } from '../db/config.ts';
import { createDatabasePool } from '../db/pool.ts';
import { startEmbeddedProcesses, type EmbeddedProcesses } from '../worker/embedded.ts';

/** env: extra settings over the service's defaults (e.g. ALLOW_PRIVATE_NETWORK_TARGETS for a local receiver). */
export async function startBenchAppWithProcesses(databaseUrl: string, env: Record<string, string> = {}) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'iam-bench-data-'));
  const cleanups: (() => Promise<unknown>)[] = [() => fs.rm(dataDir, { recursive: true, force: true })];
  const close = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((e: unknown) => console.error('cleanup failed:', e));
  };
  try {
    const config = loadConfig({ DATA_DIR: dataDir, RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: 'silent', ...env });
    const pool = await createDatabasePool(databaseUrl, { maxPoolSize: config.databasePoolSize });
    cleanups.push(() => pool.end());
    const { app, masterKey, bootstrap: { file } } = await assembleApp(config, pool, databaseUrl);
    cleanups.push(() => app.close());
    const credentials = JSON.parse(await fs.readFile(file, 'utf8')) as BootstrapCredentials;
    // The processes can be stopped and started again (e.g. to build up a backlog of undispatched events),
    // always with the same arguments; DBOS is a process-wide singleton, so at most one runs at a time.
    const deps = { config, pool, databaseUrl, masterKey, onError: (error: unknown) => console.error('dispatcher round failed:', error) };
    let processes: EmbeddedProcesses | undefined = await startEmbeddedProcesses(deps);
    /** Stops the dispatcher, then the engine; a no-op when they are stopped. */
    const stopProcesses = async () => {
      const running = processes;
      processes = undefined;
      await running?.stop();
    };
    /** Starts the engine and the dispatcher again; resolves once both run (the dispatcher's first round is under way). */
    const startProcesses = async () => {
      if (!processes) processes = await startEmbeddedProcesses(deps);
    };
    cleanups.push(stopProcesses);

    const token = async () => {
      const res = await app.inject({
        method: 'POST', url: '/v1/oauth/token',
        payload: { grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret },
      });
      if (res.statusCode !== 200) throw new Error(`token request failed: ${res.statusCode} ${res.body}`);
      return (res.json() as { access_token: string }).access_token;
    };
    return {
      app, pool, config, masterKey, credentials, token, close, stopProcesses, startProcesses,
      /** The running processes, or undefined while stopped. */
      get processes() {
        return processes;
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}
