// autocannon in a child process: the load generator never shares the event loop of the server it measures, so
// latencies are the server's (the bench process runs the service and the baseline).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

type Options = Parameters<typeof autocannon>[0];
type Result = Awaited<ReturnType<typeof autocannon>>;
type Reply = { result?: Result; error?: string };

if (process.send && process.argv.includes('--load-worker')) {
  process.on('message', (options: Options) => {
    autocannon(options).then(
      (result) => process.send!({ result } satisfies Reply),
      (error: unknown) => process.send!({ error: String(error) } satisfies Reply),
    );
  });
}

/** Forks the load generator; one load at a time. */
export function startLoadWorker() {
  const child = fork(fileURLToPath(import.meta.url), ['--load-worker'], { stdio: 'inherit' });
  const run = (options: Options) =>
    new Promise<Result>((resolve, reject) => {
      child.once('message', (m: Reply) => (m.error ? reject(new Error(m.error)) : resolve(m.result!)));
      child.send(options);
    });
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill();
    });
  return { run, close };
}
