// A real app over a real (cloned) database, bootstrapped as on a first start.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { DatabasePool } from 'slonik';
import { assembleApp } from '../../api/assemble.ts';
import type { BootstrapCredentials } from '../../api/bootstrap.ts';
import type { SigningKeys } from '../../api/access/signing-keys.ts';
import type { App } from '../../api/types.ts';
import type { PasswordPolicy } from '../../api/passwords/policy.ts';
import { loadConfig, type Config } from '../../lib/config.ts';
import { createDatabasePool } from '../../db/pool.ts';
import { createTestDatabase } from './database.ts';

export interface TestApp {
  app: App;
  pool: DatabasePool;
  keys: SigningKeys;
  masterKey: Buffer;
  config: Config;
  databaseUrl: string;
  credentials: BootstrapCredentials;
  /** An access token of the bootstrap service account (scope `*` unless narrowed). */
  token(scope?: string): Promise<string>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  databaseUrl?: string;
  /** Instead of the default password policy (api/passwords/policy.ts). */
  passwordPolicy?: PasswordPolicy;
}

export async function startTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'iam-test-data-'));
  const config = loadConfig({ DATA_DIR: dataDir, RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: 'silent', DATABASE_POOL_SIZE: '5', ...env });
  const databaseUrl = options.databaseUrl ?? (await createTestDatabase());
  const pool = await createDatabasePool(databaseUrl, { maxPoolSize: config.databasePoolSize });
  // A handler that sends a reply and then returns a value makes Fastify log FST_ERR_REP_ALREADY_SENT: the client
  // sees nothing wrong, so every app of the tests watches for it and close() fails the file that provoked it.
  const answeredTwice: string[] = [];
  const logger = { level: 'warn', stream: { write: (line: string) => void (line.includes('FST_ERR_REP_ALREADY_SENT') && answeredTwice.push(line)) } };
  const {
    app,
    keys,
    masterKey,
    bootstrap: { file },
  } = await assembleApp(config, pool, databaseUrl, logger, undefined, { passwordPolicy: options.passwordPolicy });
  const credentials = JSON.parse(await fs.readFile(file, 'utf8')) as BootstrapCredentials;
  return {
    app,
    pool,
    keys,
    masterKey,
    config,
    databaseUrl,
    credentials,
    token: (scope) => clientCredentialsToken(app, credentials.clientId, credentials.clientSecret, scope),
    close: async () => {
      await app.close();
      await pool.end();
      await fs.rm(dataDir, { recursive: true, force: true });
      if (answeredTwice.length > 0) throw new Error(`a handler answered twice:\n${answeredTwice.join('')}`);
    },
  };
}

export async function clientCredentialsToken(app: App, clientId: string, clientSecret: string, scope?: string): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/v1/oauth/token',
    payload: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, ...(scope ? { scope } : {}) },
  });
  if (res.statusCode !== 200) throw new Error(`token request failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { access_token: string }).access_token;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
