// The `npm start` shape for real: a child process with its embedded Postgres in a fresh DATA_DIR.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
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

function start(env: Record<string, string> = {}): { child: ChildProcess; output: () => string } {
  let out = '';
  const child = spawn(process.execPath, ['api/server.ts'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'info', ...env },
  });
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

async function ready(): Promise<{ status: number; body: { ok: boolean; draining: boolean; checks: Record<string, { ok: boolean }> } }> {
  const response = await fetch(`http://127.0.0.1:${port}/v1/health/ready`);
  return { status: response.status, body: (await response.json()) as never };
}

/** A request whose body is still arriving: it is in flight until `finish()` sends the rest. */
function slowRequest(pathname: string, body: string, token: string) {
  const request = http.request(`http://127.0.0.1:${port}${pathname}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  const answered = new Promise<number>((resolve, reject) => {
    request.once('response', (response) => {
      response.resume();
      resolve(response.statusCode!);
    });
    request.once('error', reject);
  });
  request.write(body.slice(0, 5));
  return { answered, finish: () => request.end(body.slice(5)) };
}

/** SIGTERM: not ready first (live still answering), the request in flight finishes, then a clean exit. */
async function drains(child: ChildProcess) {
  const before = await ready();
  expect(before).toEqual({ status: 200, body: { ok: true, draining: false, checks: { database: { ok: true }, dispatcher: { ok: true } } } });
  const { personalAccessToken } = JSON.parse(await fs.readFile(path.join(dataDir, 'bootstrap.json'), 'utf8'));
  const inFlight = slowRequest('/v1/tenants', JSON.stringify({ name: 'In flight' }), personalAccessToken);
  const code = exited(child);
  child.kill('SIGTERM');
  await expect.poll(async () => (await ready()).status, { timeout: 5000, interval: 50 }).toBe(503);
  expect((await ready()).body).toMatchObject({ ok: false, draining: true });
  expect((await fetch(`http://127.0.0.1:${port}/v1/health/live`)).status).toBe(200);
  inFlight.finish();
  expect(await inFlight.answered).toBe(201);
  expect(await code).toBe(0);
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
    const third = start({ SHUTDOWN_DRAIN_DELAY: '1s' });
    await healthy();
    expect((await api(`/v1/tenants/${created.tenant.id}`)).status).toBe(200);
    await drains(third.child);
  });
});
