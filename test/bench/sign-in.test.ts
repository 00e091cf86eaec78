// bench:sign-in's own parts that a wrong figure would hide in: the static baseline page is exactly as long as the
// sign-in page it stands beside, the virtual users count what they measured, and the percentiles are nearest-rank.
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../api/types.ts';
import { latencies, pageLoad } from '../../bench/sign-in/page-load.ts';
import { registerStaticPage, STATIC_PATH } from '../../bench/sign-in/pages.ts';

const app = Fastify();
let page: ReturnType<typeof registerStaticPage>;
let origin: string;
beforeAll(async () => {
  page = registerStaticPage(app as unknown as App);
  await app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});
afterAll(() => app.close());

describe('bench:sign-in', () => {
  it('serves a static HTML page of exactly the size it is given', async () => {
    for (const bytes of [2744, 5000]) {
      expect(page.setSize(bytes)).toBe(bytes);
      const res = await fetch(`${origin}${STATIC_PATH}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(Buffer.byteLength(await res.text())).toBe(bytes);
    }
  });

  it('counts each answered page of its virtual users and reports their latencies', async () => {
    page.setSize(1000);
    const result = await pageLoad({ kind: 'static', url: `${origin}${STATIC_PATH}`, users: 4, duration: 0.3 });
    expect(result.errors).toBe(0);
    expect(result.page.n).toBeGreaterThan(0);
    expect(result.pagesPerSecond).toBe(result.requestsPerSecond);
    expect(result.page.p50).toBeLessThanOrEqual(result.page.p95);
    expect(result.authorize).toBeUndefined();
  });

  it('counts a refused page as an error with its status', async () => {
    const result = await pageLoad({ kind: 'static', url: `${origin}/nowhere`, users: 2, duration: 0.1 });
    expect(result.page.n).toBe(0);
    expect(result.errors).toBeGreaterThan(0);
    expect(result.firstError).toBe('Error: static page: 404');
  });

  it('takes nearest-rank percentiles', () => {
    const list = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(latencies(list)).toEqual({ n: 100, p50: 50, p95: 95, p99: 99, max: 100 });
    expect(latencies([])).toEqual({ n: 0, p50: 0, p95: 0, p99: 0, max: 0 });
  });
});
