// The sign-in app with the message-send processes running on its embedded engine, so a message to a person goes
// through the environment's active email or SMS provider (a local fake in the tests), as in production.
import { startEmbeddedProcesses } from '../../worker/embedded.ts';
import { startOidcApp, type OidcTestApp } from './oidc.ts';

/** The sign-in app with its message-send processes running on the embedded engine; `close` stops both. */
export async function startSendingApp(): Promise<OidcTestApp> {
  const t = await startOidcApp({ LOG_LEVEL: 'error', ALLOW_PRIVATE_NETWORK_TARGETS: 'true', DISPATCH_POLL_MS: '200' });
  const processes = await startEmbeddedProcesses({
    config: t.config,
    pool: t.pool,
    databaseUrl: t.databaseUrl,
    masterKey: t.masterKey,
    onError: console.error,
  });
  const closeApp = t.close.bind(t);
  return Object.assign(t, {
    close: async () => {
      await processes.stop();
      await closeApp();
    },
  });
}
