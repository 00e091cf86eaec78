// `npm start` with a DATA_DIR the postgres OS user cannot enter, as a child process. Run as root, the embedded Postgres
// runs as `postgres`: DATA_DIR itself (a `mktemp -d` folder is 0700) is opened for it; a closed folder above DATA_DIR
// stops the start with one line saying what to do. Not as root, Postgres runs as the service's own user and both start.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../db/embedded.ts';

const asRoot = process.getuid?.() === 0;
let parent: string;
beforeAll(async () => {
  parent = await fs.mkdtemp(path.join(os.tmpdir(), 'iam-data-dir-'));
  await fs.chmod(parent, 0o755);
});
afterAll(() => fs.rm(parent, { recursive: true, force: true }));

function start(dataDir: string, port: number) {
  let out = '';
  const child = spawn(process.execPath, ['api/server.ts'], { env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' } });
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => out };
}

async function healthy(port: number, exited: Promise<unknown>): Promise<boolean> {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && !gone) {
    if (
      await fetch(`http://127.0.0.1:${port}/v1/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

describe('npm start with a DATA_DIR closed to others', () => {
  it('comes up with DATA_DIR a fresh mkdtemp folder (mode 0700)', { timeout: 120_000 }, async () => {
    const dataDir = await fs.mkdtemp(path.join(parent, 'data-'));
    expect((await fs.stat(dataDir)).mode & 0o777).toBe(0o700);
    const port = await freePort();
    const server = start(dataDir, port);
    try {
      expect(await healthy(port, server.exited), server.output()).toBe(true);
      if (asRoot) {
        expect(server.output()).toContain(`gave the postgres OS user search permission on ${dataDir} (mode 0700 → 0701)`);
        expect((await fs.stat(dataDir)).mode & 0o777).toBe(0o701);
      }
      expect(JSON.parse(await fs.readFile(path.join(dataDir, 'bootstrap.json'), 'utf8'))).toHaveProperty('clientSecret');
    } finally {
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    }
  });

  it.runIf(asRoot)('stops with one line saying what to do when a folder above DATA_DIR is closed', { timeout: 60_000 }, async () => {
    const closed = await fs.mkdtemp(path.join(parent, 'closed-'));
    const dataDir = path.join(closed, 'data');
    const server = start(dataDir, await freePort());
    expect(await server.exited).toBe(1);
    expect(server.output()).toBe(
      `The embedded Postgres runs as the OS user postgres (Postgres refuses root), which cannot enter ${closed} (mode 0700): ` +
        `set DATA_DIR to a folder outside it, or run chmod o+x ${closed}, or set DATABASE_URL.\n`,
    );
    expect((await fs.stat(closed)).mode & 0o777).toBe(0o700);
  });
});
