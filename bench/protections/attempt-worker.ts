// The attempt load (./attempt-load.ts) in a child process, so the virtual users never share the event loop of the
// server they measure (as bench/sign-in/page-worker.ts). One load at a time.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { attemptLoad, type AttemptLoadOptions, type AttemptLoadResult } from './attempt-load.ts';

type Reply = { result?: AttemptLoadResult; error?: string };

if (process.send && process.argv.includes('--attempt-worker')) {
  process.on('message', (options: AttemptLoadOptions) => {
    attemptLoad(options).then(
      (result) => process.send!({ result } satisfies Reply),
      (error: unknown) => process.send!({ error: String(error) } satisfies Reply),
    );
  });
}

export function startAttemptWorker() {
  const child = fork(fileURLToPath(import.meta.url), ['--attempt-worker'], { stdio: 'inherit' });
  const run = (options: AttemptLoadOptions) =>
    new Promise<AttemptLoadResult>((resolve, reject) => {
      child.once('message', (m: Reply) => (m.error ? reject(new Error(m.error)) : resolve(m.result!)));
      child.send(options);
    });
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill();
    });
  return { run, close, pid: child.pid! };
}
