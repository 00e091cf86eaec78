// What a test run starts outside its own process (the embedded Postgres, the Temporal dev server) and the one folder
// everything of the run is written to, stopped and removed on any exit: normal teardown, SIGINT (Ctrl-C), SIGTERM,
// SIGHUP (a closed terminal), a closed stdout pipe (EPIPE), an uncaught exception.
//
// The cleanup is synchronous so that it also runs in the process's 'exit' event: vitest answers SIGINT and SIGTERM
// with process.exit(), so the global teardowns never run then. The run's folder becomes TMPDIR before the test files
// start, so their temporary folders (test apps' data dirs…) are inside it and go with it.
import { existsSync, mkdtempSync, readFileSync, rmSync, chmodSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

interface RunState {
  root: string;
  /** Data directories of Postgres servers this run started (their postmaster.pid names the server). */
  postgres: Set<string>;
  /** Other child processes this run started (the Temporal dev server). */
  processes: Set<number>;
  /** Folders made outside the run's folder before it existed (vitest's module cache): removed on exit only. */
  folders: Set<string>;
}

// Global setup files may be evaluated as separate module instances: the state lives on the process.
const KEY = Symbol.for('iam.test.run-cleanup');
const holder = globalThis as unknown as Record<symbol, RunState | undefined>;

const SIGNALS = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const;

/** The run's folder (created on the first call, with the exit handlers installed): TMPDIR from then on. */
export function testRunRoot(): string {
  const existing = holder[KEY];
  if (existing) return existing.root;
  const root = mkdtempSync(path.join(os.tmpdir(), 'iam-test-run-'));
  // Run as root, Postgres runs as the postgres OS user, which must traverse this folder to reach its data.
  chmodSync(root, 0o711);
  holder[KEY] = { root, postgres: new Set(), processes: new Set(), folders: new Set() };
  process.env.TMPDIR = root;
  installHandlers();
  return root;
}

const state = () => {
  testRunRoot();
  return holder[KEY]!;
};

/** Marks the Postgres whose data directory is `dataDir` as this run's (stopped on exit); returns the release. */
export function ownPostgres(dataDir: string): () => void {
  state().postgres.add(dataDir);
  return () => state().postgres.delete(dataDir);
}

/** Marks a child process as this run's (stopped on exit); returns the release. */
export function ownProcess(pid: number): () => void {
  state().processes.add(pid);
  return () => state().processes.delete(pid);
}

/**
 * Marks a folder as this run's, removed when the process exits (not at teardown: vitest removes its module cache
 * itself once the run closes, and an interrupted run never gets there).
 */
export function ownFolder(folder: string): void {
  state().folders.add(folder);
}

/** Stops everything still owned and removes the run's folder, synchronously. Safe to call more than once. */
export function cleanUpRun(options: { exiting?: boolean } = {}): void {
  const run = holder[KEY];
  if (!run) return;
  for (const dataDir of run.postgres) {
    // SIGQUIT: Postgres's immediate shutdown (it stops its backends and frees its shared memory itself).
    const pid = postmasterPid(dataDir);
    if (pid) stopSync(pid, 'SIGQUIT', 5000, true);
  }
  run.postgres.clear();
  for (const pid of run.processes) stopSync(pid, 'SIGTERM', 3000, false);
  run.processes.clear();
  rmSync(run.root, { recursive: true, force: true });
  if (!options.exiting) return;
  for (const folder of run.folders) rmSync(folder, { recursive: true, force: true });
  run.folders.clear();
}

const cleanUpOnExit = () => cleanUpRun({ exiting: true });

function installHandlers() {
  process.once('exit', cleanUpOnExit);
  // `on`, not `once`: a process with no listener left for a signal dies of the next one at once, and a second
  // signal is common (`timeout` and npm each pass SIGTERM on) while the cleanup waits for Postgres to stop.
  for (const [signal, number] of Object.entries(SIGNALS)) {
    process.on(signal, () => {
      cleanUpOnExit();
      process.exit(128 + number);
    });
  }
  // A reader that went away (`npx vitest run | head`): the next write fails with EPIPE, which would otherwise be an
  // uncaught error that a reporter may swallow while the run goes on writing nowhere.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      cleanUpOnExit();
      process.exit(1);
    });
  }
}

function postmasterPid(dataDir: string): number | undefined {
  const file = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Whether `pid` still runs (a zombie, which only waits for its parent to read its status, does not). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return true;
  }
}

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

const send = (target: number, signal: NodeJS.Signals) => {
  try {
    process.kill(target, signal);
  } catch {
    // gone already
  }
};

/** Asks `pid` to stop, waits up to `graceMs` (blocking: this also runs in 'exit'), then kills what is left of it. */
function stopSync(pid: number, signal: NodeJS.Signals, graceMs: number, group: boolean) {
  if (isRunning(pid)) {
    send(pid, signal);
    const deadline = Date.now() + graceMs;
    while (isRunning(pid) && Date.now() < deadline) pause(25);
  }
  // A detached Postgres leads its own process group: its backends go with it.
  if (group) send(-pid, 'SIGKILL');
  else if (isRunning(pid)) send(pid, 'SIGKILL');
}
