// The OpenID provider's app (test/helpers/oidc.ts) with its processes running on an engine (test/helpers/processes.ts):
// for what a revocation starts, such as the back-channel logout of the session's clients.
import { freePort } from '../../db/embedded.ts';
import type { OidcTestApp } from './oidc.ts';
import { startTestAppWithProcesses, type Engine, type TestAppWithProcesses } from './processes.ts';

/** The app listening on 127.0.0.1 with PUBLIC_BASE_URL its own address, its processes running on `engine`. */
export async function startOidcAppWithProcesses(engine: Engine, env: Record<string, string> = {}): Promise<OidcTestApp & TestAppWithProcesses> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const t = await startTestAppWithProcesses({ engine, env: { PUBLIC_BASE_URL: baseUrl, ...env } });
  await t.app.listen({ port, host: '127.0.0.1' });
  // The same object, not a copy: restartProcesses replaces its `processes`.
  return Object.assign(t, { baseUrl, issuer: (environmentId: string) => `${baseUrl}/v1/oidc/${environmentId}` });
}
