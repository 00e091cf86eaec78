// `npm run checks` (the first half of `npm test`): the type check, the linter and the formatting check side by side
// (each is single-threaded: on two cores this halves their wait). Each one's output is printed whole when it ends, so
// the three never interleave; the run fails when any fails, after all have ended.
import { spawn } from 'node:child_process';

const CHECKS = ['typecheck', 'lint', 'format:check'];

const run = (script: string) =>
  new Promise<{ script: string; code: number; output: string; seconds: number }>((resolve) => {
    const started = performance.now();
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ script, code: code ?? 1, output, seconds: Math.round((performance.now() - started) / 100) / 10 }));
  });

const results = await Promise.all(
  CHECKS.map(async (script) => {
    const result = await run(script);
    process.stdout.write(
      `${result.code === 0 ? 'ok' : 'FAILED'}: npm run ${script} (${result.seconds} s)\n${result.output.trimEnd() ? `${result.output.trimEnd()}\n` : ''}`,
    );
    return result;
  }),
);
process.exitCode = results.some((r) => r.code !== 0) ? 1 : 0;
