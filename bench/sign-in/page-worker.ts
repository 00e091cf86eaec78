// The page load (bench/sign-in/page-load.ts) in a child process, so the virtual users never share the event loop of
// the server they measure (as bench/load-worker.ts does for autocannon). One load at a time.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { pageLoad, type PageLoadOptions, type PageLoadResult } from './page-load.ts';

type Reply = { result?: PageLoadResult; error?: string };

if (process.send && process.argv.includes('--page-worker')) {
  process.on('message', (options: PageLoadOptions) => {
    pageLoad(options).then(
      (result) => process.send!({ result } satisfies Reply),
      (error: unknown) => process.send!({ error: String(error) } satisfies Reply),
    );
  });
}

export function startPageWorker() {
  const child = fork(fileURLToPath(import.meta.url), ['--page-worker'], { stdio: 'inherit' });
  const run = (options: PageLoadOptions) =>
    new Promise<PageLoadResult>((resolve, reject) => {
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
