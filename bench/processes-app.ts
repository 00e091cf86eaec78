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
import { startEmbeddedProcesses } from '../worker/embedded.ts';

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
    const processes = await startEmbeddedProcesses({
      config, pool, databaseUrl, masterKey, onError: (error) => console.error('dispatcher round failed:', error),
    });
    cleanups.push(() => processes.stop());

    const token = async () => {
      const res = await app.inject({
        method: 'POST', url: '/v1/oauth/token',
        payload: { grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret },
      });
      if (res.statusCode !== 200) throw new Error(`token request failed: ${res.statusCode} ${res.body}`);
      return (res.json() as { access_token: string }).access_token;
    };
    return { app, pool, config, masterKey, credentials, processes, token, close };
  } catch (error) {
    await close();
    throw error;
  }
}
