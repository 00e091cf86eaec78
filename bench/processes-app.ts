// The bench app with the embedded process engine (DBOS) and the event dispatcher running in this process,
// as `npm start` has them, and the means to stop and start them (e.g. to build up a backlog of events).
import { startEmbeddedProcesses, type EmbeddedProcesses } from '../worker/embedded.ts';
import { startBenchApp } from './app.ts';

export async function startBenchAppWithProcesses(databaseUrl: string, env: Record<string, string> = {}) {
  const service = await startBenchApp(databaseUrl, env);
  const { config, pool, masterKey } = service;
  // Always the same arguments; DBOS is a process-wide singleton, so at most one runs at a time.
  const deps = { config, pool, databaseUrl, masterKey, onError: (error: unknown) => console.error('dispatcher round failed:', error) };
  let processes: EmbeddedProcesses | undefined;
  /** Stops the dispatcher, then the engine; a no-op when they are stopped. */
  const stopProcesses = async () => {
    const running = processes;
    processes = undefined;
    await running?.stop();
  };
  /** Starts the engine and the dispatcher again; resolves once both run. */
  const startProcesses = async () => {
    if (!processes) processes = await startEmbeddedProcesses(deps);
  };
  try {
    await startProcesses();
  } catch (error) {
    await service.close();
    throw error;
  }
  return {
    ...service,
    stopProcesses,
    startProcesses,
    close: async () => {
      await stopProcesses();
      await service.close();
    },
    /** The running processes, or undefined while stopped. */
    get processes() {
      return processes;
    },
  };
}
