// The load generators in a child process: they never share the event loop of the server they measure, so latencies
// are the server's (the bench process runs the service and the baseline). `run` is autocannon at full speed; `paced`
// sends at a fixed rate (bench/paced-load.ts), for latencies below the maximum rate.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { pacedLoad, type PacedOptions, type PacedResult } from './paced-load.ts';

type Options = Parameters<typeof autocannon>[0];
type Result = Awaited<ReturnType<typeof autocannon>>;
type Message = { autocannon: Options } | { paced: PacedOptions };
type Reply = { result?: Result | PacedResult; error?: string };

if (process.send && process.argv.includes('--load-worker')) {
  process.on('message', (message: Message) => {
    const work: Promise<Result | PacedResult> = 'paced' in message ? pacedLoad(message.paced) : autocannon(message.autocannon);
    work.then(
      (result) => process.send!({ result } satisfies Reply),
      (error: unknown) => process.send!({ error: String(error) } satisfies Reply),
    );
  });
}

/** Forks the load generator; one load at a time. */
export function startLoadWorker() {
  const child = fork(fileURLToPath(import.meta.url), ['--load-worker'], { stdio: 'inherit' });
  const ask = <R>(message: Message) =>
    new Promise<R>((resolve, reject) => {
      child.once('message', (m: Reply) => (m.error ? reject(new Error(m.error)) : resolve(m.result as R)));
      child.send(message);
    });
  const run = (options: Options) => ask<Result>({ autocannon: options });
  const paced = (options: PacedOptions) => ask<PacedResult>({ paced: options });
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill();
    });
  return { run, paced, close };
}
