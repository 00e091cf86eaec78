// Everything between an open database and a ready app: bootstrap, master key, signing keys, buildApp.
// Shared by the server, the tests and the benchmarks so that all three run the same wiring.
import type { DatabasePool } from 'slonik';
import type { Config } from '../lib/config.ts';
import { loadMasterKey } from '../lib/crypto.ts';
import { buildApp, type AppDeps } from './app.ts';
import { bootstrap } from './bootstrap.ts';
import { createSigningKeys } from './access/signing-keys.ts';

export async function assembleApp(
  config: Config,
  pool: DatabasePool,
  databaseUrl: string,
  logger?: AppDeps['logger'],
  extend?: AppDeps['extend'],
  ports: Pick<AppDeps, 'passwordPolicy' | 'protectionTimings'> = {},
) {
  const bootstrapped = await bootstrap(pool, config);
  const masterKey = await loadMasterKey(config.masterKey, config.dataDir);
  // Retired keys stay published until every token they signed has expired (plus slack for clock skew).
  const keys = await createSigningKeys(pool, masterKey, config.accessTokenTtlSeconds + 300);
  const app = await buildApp({ config, pool, databaseUrl, keys, masterKey, logger, extend, ...ports });
  return { app, keys, masterKey, bootstrap: bootstrapped };
}
