// A bench load in a child process, so the virtual users never share the event loop of the server they measure: the
// worker module serves its load when forked with its flag, and the bench starts it and runs one load at a time.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

type Reply<R> = { result?: R; error?: string };

/** In the forked child (started with `flag`): runs `load` for each message and answers its result or error. */
export function serveLoad<O, R>(flag: string, load: (options: O) => Promise<R>) {
  if (!process.send || !process.argv.includes(flag)) return;
  process.on('message', (options: O) => {
    load(options).then(
      (result) => process.send!({ result } satisfies Reply<R>),
      (error: unknown) => process.send!({ error: String(error) } satisfies Reply<R>),
    );
  });
}

/** Forks the worker module at `moduleUrl` with `flag`; `run` sends one load's options and resolves with its result. */
export function startLoadChild<O, R>(moduleUrl: string, flag: string) {
  const child = fork(fileURLToPath(moduleUrl), [flag], { stdio: 'inherit' });
  const run = (options: O) =>
    new Promise<R>((resolve, reject) => {
      child.once('message', (m: Reply<R>) => (m.error ? reject(new Error(m.error)) : resolve(m.result!)));
      child.send(options as object);
    });
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill();
    });
  return { run, close, pid: child.pid! };
}
