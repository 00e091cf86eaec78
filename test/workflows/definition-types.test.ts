// "A kind that misses a piece fails to compile": tsc checks test/workflows/fixtures/incomplete-kind.ts, where each
// incomplete definition (no sweep, scope, summaries or activity descriptions; wrong input; unknown kind; a registry
// missing a kind) is marked `@ts-expect-error`. tsc fails when one of them compiles (an unused directive).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

it('refuses, at compile time, every process definition that misses a piece', { timeout: 120_000 }, async () => {
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
  const run = await promisify(execFile)(process.execPath, [tsc, '-p', path.join(import.meta.dirname, 'fixtures/tsconfig.json')], { cwd: root }).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
  expect(run).toEqual({ code: 0, stdout: '' });
});
