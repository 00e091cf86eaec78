// The real app over a given database, bootstrapped as on a first start, with the service's default pool
// size (test/helpers/app.ts pulls in vitest and uses a smaller pool).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { assembleApp } from '../api/assemble.ts';
import type { AppDeps } from '../api/app.ts';
import type { BootstrapCredentials } from '../api/bootstrap.ts';
import { loadConfig } from '../lib/config.ts';
import { createDatabasePool } from '../db/pool.ts';

/**
 * env: extra settings over the service's defaults (e.g. ALLOW_PRIVATE_NETWORK_TARGETS for a local receiver); extend:
 * routes the bench adds to the app beside the service's own (a baseline served by the same process).
 */
export async function startBenchApp(
  databaseUrl: string,
  env: Record<string, string> = {},
  extend?: AppDeps['extend'],
  ports: Pick<AppDeps, 'protectionTimings'> = {},
) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'iam-bench-data-'));
  const config = loadConfig({ DATA_DIR: dataDir, RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: 'silent', ...env });
  const pool = await createDatabasePool(databaseUrl, { maxPoolSize: config.databasePoolSize });
  const {
    app,
    masterKey,
    bootstrap: { file },
  } = await assembleApp(config, pool, databaseUrl, undefined, extend, ports);
  const credentials = JSON.parse(await fs.readFile(file, 'utf8')) as BootstrapCredentials;

  const token = async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      payload: { grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret },
    });
    if (res.statusCode !== 200) throw new Error(`token request failed: ${res.statusCode} ${res.body}`);
    return (res.json() as { access_token: string }).access_token;
  };

  return {
    app,
    pool,
    config,
    masterKey,
    credentials,
    poolSize: config.databasePoolSize,
    token,
    close: async () => {
      await app.close();
      await pool.end();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
