// Authorization-code flows in a child process, `inFlight` at a time for `seconds`: the flows' HTTP client never
// shares the event loop of the service it measures (as bench/load-worker.ts does for autocannon).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { closedLoop } from '../closed-loop.ts';
import { authorizationCodeFlow, type FlowTarget } from './flow.ts';

interface Run {
  target: FlowTarget;
  inFlight: number;
  seconds: number;
}
type Reply = { flows?: number; seconds?: number; errors?: number; firstError?: string; error?: string };

if (process.send && process.argv.includes('--flow-worker')) {
  process.on('message', async ({ target, inFlight, seconds }: Run) => {
    try {
      let flows = 0;
      const loop = await closedLoop(inFlight, seconds, async () => {
        await authorizationCodeFlow(target);
        flows++;
      });
      process.send!({ flows, errors: loop.errors, firstError: loop.firstError, seconds: loop.seconds } satisfies Reply);
    } catch (error) {
      process.send!({ error: String(error) } satisfies Reply);
    }
  });
}

/** Forks the flow driver; one run at a time. */
export function startFlowWorker() {
  const child = fork(fileURLToPath(import.meta.url), ['--flow-worker'], { stdio: 'inherit' });
  const run = (options: Run) =>
    new Promise<{ perSecond: number; flows: number; errors: number; firstError?: string }>((resolve, reject) => {
      child.once('message', (m: Reply) =>
        m.error
          ? reject(new Error(m.error))
          : resolve({ perSecond: Math.round((m.flows! / m.seconds!) * 10) / 10, flows: m.flows!, errors: m.errors!, firstError: m.firstError }),
      );
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
