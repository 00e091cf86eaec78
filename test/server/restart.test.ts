// The `npm start` shape for real: a child process with its embedded Postgres in a fresh DATA_DIR.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../db/embedded.ts';

let dataDir: string;
let port: number;
beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'iam-server-'));
  await fs.chmod(dataDir, 0o755);
  port = await freePort();
});
afterAll(() => fs.rm(dataDir, { recursive: true, force: true }));

function start(): { child: ChildProcess; output: () => string } {
  let out = '';
  const child = spawn(process.execPath, ['api/server.ts'], { env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info' } });
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { child, output: () => out };
}

async function healthy(): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const ok = await fetch(`http://127.0.0.1:${port}/v1/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('server did not become healthy');
}

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

async function api(pathname: string, init: RequestInit = {}) {
  const { personalAccessToken } = JSON.parse(await fs.readFile(path.join(dataDir, 'bootstrap.json'), 'utf8'));
  return fetch(`http://127.0.0.1:${port}${pathname}`, {
    ...init,
    headers: { authorization: `Bearer ${personalAccessToken}`, 'content-type': 'application/json' },
  });
}

describe('npm start', () => {
  it('prints the URL and the credentials path, keeps data across a clean restart and across a SIGKILL', { timeout: 120_000 }, async () => {
    const first = start();
    await healthy();
    expect(first.output()).toContain(`http://127.0.0.1:${port}`);
    expect(first.output()).toContain(path.join(dataDir, 'bootstrap.json'));
    expect(first.output()).not.toMatch(/adsa_|adpat_/);
    const created = (await (await api('/v1/tenants', { method: 'POST', body: JSON.stringify({ name: 'Survivor' }) })).json()) as { tenant: { id: string } };

    first.child.kill('SIGINT');
    expect(await exited(first.child)).toBe(0);
    expect(first.output()).toContain('stopped');

    const second = start();
    await healthy();
    expect(second.output()).not.toContain('first start');
    const got = await api(`/v1/tenants/${created.tenant.id}`);
    expect(got.status).toBe(200);

    // A crash leaves the embedded Postgres orphaned; the next start must take the data directory back.
    second.child.kill('SIGKILL');
    await exited(second.child);
    const third = start();
    await healthy();
    expect((await api(`/v1/tenants/${created.tenant.id}`)).status).toBe(200);
    third.child.kill('SIGTERM');
    expect(await exited(third.child)).toBe(0);
  });
});
