// A test app with the embedded process engine and the dispatcher running, as `npm start` has them.
import { startEmbeddedProcesses, type EmbeddedProcesses } from '../../worker/embedded.ts';
import { startTestApp, type TestApp } from './app.ts';

export interface TestAppWithProcesses extends TestApp {
  processes: EmbeddedProcesses;
  /** Restarts the process engine (and dispatcher) as a service restart would. */
  restartProcesses(): Promise<void>;
}

/** Millisecond schedules and private targets so deliveries to a local receiver run in a test's time. */
export const FAST_PROCESSES = {
  ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '0,300ms,300ms,300ms',
  WEBHOOK_TIMEOUT_MS: '300',
  DISPATCH_POLL_MS: '200',
};

export async function startTestAppWithProcesses(env: Record<string, string> = {}): Promise<TestAppWithProcesses> {
  const t = await startTestApp({ ...FAST_PROCESSES, ...env });
  const start = () =>
    startEmbeddedProcesses({ config: t.config, pool: t.pool, databaseUrl: t.databaseUrl, masterKey: t.masterKey, onError: (e) => console.error(e) });
  const result: TestAppWithProcesses = {
    ...t,
    processes: await start(),
    restartProcesses: async () => {
      await result.processes.stop();
      result.processes = await start();
    },
    close: async () => {
      await result.processes.stop();
      await t.close();
    },
  };
  return result;
}
