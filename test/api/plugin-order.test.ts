// The cross-cutting plugins are named fastify-plugin plugins that declare what they need: registering them in a
// wrong order (or a family before them) fails at ready() naming the missing plugin, instead of answering wrongly.
import Fastify from 'fastify';
import type { DatabasePool } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAMILY_DEPENDENCIES, familyPlugin } from '../../api/app.ts';
import { createAuthenticator } from '../../api/access/principals.ts';
import { createEnvironmentSecretAuthenticator } from '../../api/access/environment-secrets.ts';
import { FAMILIES } from '../../api/families/index.ts';
import { authPlugin } from '../../api/plugins/auth.ts';
import { environmentSecretPlugin } from '../../api/plugins/environment-secret.ts';
import { errorsPlugin } from '../../api/plugins/errors.ts';
import { impersonationAuditPlugin } from '../../api/plugins/impersonation-audit.ts';
import { openApiPlugin } from '../../api/plugins/openapi.ts';
import { rateLimitPlugin } from '../../api/plugins/rate-limit.ts';
import { requestTextPlugin } from '../../api/plugins/request-text.ts';
import { scopePlugin } from '../../api/plugins/scope.ts';
import { securityHeadersPlugin } from '../../api/plugins/security-headers.ts';
import { createSharedWindows } from '../../api/rate-limits/shared-windows.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let pool: DatabasePool;
beforeAll(async () => {
  t = await startTestApp();
  pool = t.pool;
});
afterAll(() => t.close());

const windows = () => createSharedWindows({ pool, syncIntervalMs: 50, log: { warn: () => {} } });
const authenticator = () => createAuthenticator({ pool, keys: t.keys, issuer: 'https://iam.test', audience: 'https://iam.test/v1', onError: () => {} });

/** Every cross-cutting plugin, in an order that satisfies their declared dependencies. */
const plugins = () =>
  [
    ['errors', (app) => app.register(errorsPlugin)],
    ['auth', (app) => app.register(authPlugin, { authenticator: authenticator() })],
    ['impersonation-audit', (app) => app.register(impersonationAuditPlugin, { pool })],
    [
      'environment-secret',
      (app) => app.register(environmentSecretPlugin, { authenticator: createEnvironmentSecretAuthenticator({ pool, onError: () => {} }), windows: windows() }),
    ],
    ['request-text', (app) => app.register(requestTextPlugin)],
    ['security-headers', (app) => app.register(securityHeadersPlugin)],
    ['scope', (app) => app.register(scopePlugin, { pool })],
    ['openapi', (app) => app.register(openApiPlugin, { publicBaseUrl: 'https://iam.test', tokenUrl: 'https://iam.test/v1/oauth/token' })],
    ['rate-limit', (app) => app.register(rateLimitPlugin, { max: 10, windowMs: 60_000, windows: windows() })],
  ] as const satisfies [string, (app: ReturnType<typeof Fastify>) => unknown][];

async function readyWith(order: string[]) {
  const app = Fastify();
  const byName = new Map<string, (app: ReturnType<typeof Fastify>) => unknown>(plugins());
  for (const name of order) void byName.get(name)!(app);
  try {
    await app.ready();
    return 'ready';
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    return `${code}: ${message}`;
  } finally {
    await app.close().catch(() => {});
  }
}

describe('named plugins', () => {
  it('are ready in the order buildApp registers them', async () => {
    expect(await readyWith(plugins().map(([name]) => name))).toBe('ready');
  });

  const dependency = (missing: string, plugin: string) =>
    `FST_ERR_PLUGIN_DEPENDENCY_NOT_REGISTERED: The dependency '${missing}' of plugin '${plugin}' is not registered`;
  const decorator = (missing: string, plugin: string) =>
    `FST_ERR_PLUGIN_NOT_PRESENT_IN_INSTANCE: The decorator '${missing}' required by '${plugin}' is not present in Request`;

  it.each([
    [['auth'], dependency('errors', 'auth')],
    [['errors', 'scope', 'auth'], decorator('principal', 'scope')],
    [['errors', 'auth', 'request-text', 'environment-secret'], dependency('environment-secret', 'request-text')],
    [['errors', 'rate-limit', 'auth'], decorator('principal', 'rate-limit')],
    [['errors', 'impersonation-audit', 'auth'], decorator('principal', 'impersonation-audit')],
    [['errors', 'openapi', 'auth', 'environment-secret'], dependency('auth', 'openapi')],
    [['errors', 'security-headers', 'auth', 'environment-secret', 'request-text', 'openapi', 'scope', 'impersonation-audit'], 'ready'],
  ])('registered as %j: %s at ready()', async (order, outcome) => {
    expect(await readyWith(order)).toBe(outcome);
  });

  it('refuse a family registered before the plugins its routes rely on', async () => {
    const app = Fastify();
    void app.register(errorsPlugin);
    void app.register(familyPlugin(FAMILIES[0]!), {} as never);
    await expect(app.ready()).rejects.toThrow(`The dependency 'auth' of plugin 'family:${FAMILIES[0]!.name}' is not registered`);
    await app.close().catch(() => {});
    expect(FAMILY_DEPENDENCIES).toEqual(expect.arrayContaining(['errors', 'auth', 'scope', 'environment-secret', 'openapi', 'request-text']));
  });
});
