// The real app over a given database, bootstrapped as on a first start. Mirrors test/helpers/app.ts
// (which also pulls in vitest) but keeps the service's default pool size (10) instead of the tests' 5.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../api/app.ts';
import { bootstrap, type BootstrapCredentials } from '../api/services/bootstrap.ts';
import { createSigningKeys } from '../api/services/signing-keys.ts';
import { loadConfig } from '../db/config.ts';
import { loadMasterKey } from '../db/crypto.ts';
import { createDatabasePool } from '../db/pool.ts';

export async function startBenchApp(databaseUrl: string) {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'iam-bench-data-'));
  const config = loadConfig({ DATA_DIR: dataDir, RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: 'silent' });
  const pool = await createDatabasePool(databaseUrl, { maxPoolSize: config.databasePoolSize });
  await bootstrap(pool, config);
  const credentials = JSON.parse(await fs.readFile(path.join(dataDir, 'bootstrap.json'), 'utf8')) as BootstrapCredentials;
  const keys = await createSigningKeys(pool, await loadMasterKey(undefined, dataDir), config.accessTokenTtlSeconds + 300);
  const app = await buildApp({ config, pool, databaseUrl, keys });

  const token = async () => {
    const res = await app.inject({
      method: 'POST', url: '/v1/oauth/token',
      payload: { grant_type: 'client_credentials', client_id: credentials.clientId, client_secret: credentials.clientSecret },
    });
    if (res.statusCode !== 200) throw new Error(`token request failed: ${res.statusCode} ${res.body}`);
    return (res.json() as { access_token: string }).access_token;
  };

  return {
    app, credentials, poolSize: config.databasePoolSize, token,
    close: async () => {
      await app.close();
      await pool.end();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
