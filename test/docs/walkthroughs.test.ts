// Every shell walkthrough of the docs runs against a live service, so no guide can drift from what the service does.
// A ```sh block is a walkthrough: the blocks of one file run in order in one bash (`set -euo pipefail`, after
// `source docs/env.sh`) against `node api/server.ts`. A ```console block is a command for the reader's own terminal
// (starting the service, a second terminal) and is not run. Any other shell fence fails, so none escapes by accident.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../db/embedded.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { docFiles, shellBlocks } from '../helpers/doc-blocks.ts';

const root = path.resolve(import.meta.dirname, '../..');
let server: ChildProcess;
let output = '';
let env: NodeJS.ProcessEnv;

async function healthy(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the service exited (${server.exitCode}):\n${output}`);
    const ok = await fetch(`${url}/v1/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the service did not become healthy:\n${output}`);
}

beforeAll(async () => {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'iam-docs-'));
  await fs.chmod(dataDir, 0o755);
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  env = {
    ...process.env,
    DATABASE_URL: await createTestDatabase(),
    DATA_DIR: dataDir,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    // The guides call local receivers (webhooks, MCP servers), as a reader trying them on `npm start` would after
    // setting it; and they run back to back with one token, far faster than a reader types.
    ALLOW_PRIVATE_NETWORK_TARGETS: 'true',
    RATE_LIMIT_MAX: '100000',
  };
  server = spawn(process.execPath, ['api/server.ts'], { cwd: root, env });
  server.stdout!.on('data', (d) => (output += d));
  server.stderr!.on('data', (d) => (output += d));
  await healthy(api);
  env = { ...env, API: api, BOOTSTRAP: path.join(dataDir, 'bootstrap.json') };
}, 90_000);

afterAll(async () => {
  // A route that answered and then returned a value: the reader saw nothing wrong, the service logged it.
  const answeredTwice = output.split('\n').filter((line) => line.includes('FST_ERR_REP_ALREADY_SENT'));
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  if (env?.DATA_DIR) await fs.rm(env.DATA_DIR, { recursive: true, force: true });
  expect(answeredTwice, 'a route answered twice').toEqual([]);
});

function runBash(script: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { cwd: root, env, maxBuffer: 64 * 1024 * 1024, timeout: 170_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

const files = await docFiles(root);

describe('docs walkthroughs', () => {
  it('uses only ```sh (run) and ```console (not run) for shell', async () => {
    for (const file of files) {
      const { others } = shellBlocks(await fs.readFile(path.join(root, file), 'utf8'));
      expect(others, `${file}: shell fences other than sh and console`).toEqual([]);
    }
  });

  it('keeps the README a front door of at most 300 lines', async () => {
    const readme = await fs.readFile(path.join(root, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
  });

  it.concurrent.each(files)('%s runs', { timeout: 180_000 }, async (file) => {
    const { run } = shellBlocks(await fs.readFile(path.join(root, file), 'utf8'));
    if (run.length === 0) return;
    const script = ['set -euo pipefail', 'source docs/env.sh', ...run].join('\n');
    const result = await runBash(script);
    expect(result.code, `${file} failed:\n${result.out.slice(-6000)}\n--- service output ---\n${output.slice(-3000)}`).toBe(0);
  });
});
