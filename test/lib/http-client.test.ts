import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRetryAfter, postOutbound } from '../../lib/outbound/http-client.ts';
import type { OutboundOptions } from '../../lib/outbound/http-client.ts';

type Received = { path: string; host: string | undefined; headers: http.IncomingHttpHeaders; body: Buffer };
const received: Received[] = [];
const hanging: http.ServerResponse[] = [];
let server: http.Server;
let base: string;
let port: number;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      received.push({ path, host: req.headers.host, headers: req.headers, body: Buffer.concat(chunks) });
      if (path === '/hang') return void hanging.push(res);
      if (path === '/big') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(10 * 1024));
      if (path === '/500') return void res.writeHead(500).end('boom');
      if (path === '/429') return void res.writeHead(429, { 'retry-after': '3' }).end('slow down');
      if (path === '/302') return void res.writeHead(302, { location: `${base}/big` }).end();
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const local: OutboundOptions = { timeoutMs: 2000, allowPrivate: true };
const last = () => received.at(-1)!;

describe('postOutbound', () => {
  it('returns 200 with an excerpt capped at maxResponseBytes', async () => {
    const r = await postOutbound(`${base}/big`, '{}', { 'content-type': 'application/json' }, local);
    expect(r).toMatchObject({ ok: true, statusCode: 200, error: null, retryAfterMs: null });
    expect(r.responseExcerpt).toBe('x'.repeat(2048));
    expect(r.headers['content-type']).toBe('text/plain');
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
    const small = await postOutbound(`${base}/big`, '{}', {}, { ...local, maxResponseBytes: 10 });
    expect(small.responseExcerpt).toBe('x'.repeat(10));
  });

  it('reports 500 as a failure with its body', async () => {
    const r = await postOutbound(`${base}/500`, '{}', {}, local);
    expect(r).toMatchObject({ ok: false, statusCode: 500, error: null, responseExcerpt: 'boom' });
  });

  it('parses Retry-After on 429', async () => {
    const r = await postOutbound(`${base}/429`, '{}', {}, local);
    expect(r).toMatchObject({ ok: false, statusCode: 429, retryAfterMs: 3000 });
  });

  it('does not follow redirects', async () => {
    const before = received.length;
    const r = await postOutbound(`${base}/302`, '{}', {}, local);
    expect(r).toMatchObject({ ok: false, statusCode: 302, error: null });
    expect(r.headers.location).toBe(`${base}/big`);
    expect(received.length).toBe(before + 1);
  });

  it('times out on a server that never answers', async () => {
    const r = await postOutbound(`${base}/hang`, '{}', {}, { ...local, timeoutMs: 200 });
    expect(r).toMatchObject({ ok: false, statusCode: null, error: 'timeout after 200 ms' });
    expect(r.durationMs).toBeGreaterThanOrEqual(190);
    expect(r.durationMs).toBeLessThan(2000);
  });

  it('reports a closed port as connection refused', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const r = await postOutbound(`http://127.0.0.1:${closedPort}/`, '{}', {}, local);
    expect(r).toMatchObject({ ok: false, statusCode: null, error: 'connection refused' });
  });

  it('refuses private targets unless allowed, without sending anything', async () => {
    const before = received.length;
    const r = await postOutbound(`${base}/`, '{}', {}, { timeoutMs: 2000, allowPrivate: false });
    expect(r).toMatchObject({ ok: false, statusCode: null });
    expect(r.error).toMatch(/127\.0\.0\.1, a loopback address; outbound calls to private networks are refused/);
    expect(received.length).toBe(before);
  });

  it('connects to the checked address, never re-resolving (DNS rebinding)', async () => {
    let calls = 0;
    // First answer is what the check sees; any later answer would be the rebinding attempt.
    const lookup = async () => (calls++ === 0 ? ['127.0.0.1'] : ['10.9.9.9']);
    const r = await postOutbound(`http://rebind.test:${port}/pinned`, 'x', {}, { ...local, lookup });
    expect(r).toMatchObject({ ok: true, statusCode: 204 });
    expect(calls).toBe(1);
    expect(last()).toMatchObject({ path: '/pinned', host: `rebind.test:${port}` });

    const refused = await postOutbound(
      `http://rebind.test:${port}/pinned`,
      'x',
      {},
      {
        timeoutMs: 2000,
        allowPrivate: false,
        lookup: async () => ['127.0.0.1'],
      },
    );
    expect(refused).toMatchObject({ ok: false, statusCode: null });
    expect(refused.error).toMatch(/resolves to 127\.0\.0\.1/);
  });

  it('delivers the exact bytes and headers', async () => {
    const bytes = Buffer.concat([Buffer.from('{"é":"✓"}\r\n', 'utf8'), Buffer.from([0, 0xff, 0xfe, 0x80])]);
    const r = await postOutbound(`${base}/bytes`, bytes, { 'content-type': 'application/json', 'x-service-signature': 't=1, v1=ab' }, local);
    expect(r.ok).toBe(true);
    expect(last().body.equals(bytes)).toBe(true);
    expect(last().headers['x-service-signature']).toBe('t=1, v1=ab');
    expect(last().headers['content-length']).toBe(String(bytes.length));

    await postOutbound(`${base}/string`, '{"name":"Zoë"}', {}, local);
    expect(last().body.equals(Buffer.from('{"name":"Zoë"}', 'utf8'))).toBe(true);
  });
});

describe('parseRetryAfter', () => {
  it('handles seconds, HTTP dates and garbage', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
