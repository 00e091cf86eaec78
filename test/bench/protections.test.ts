// bench:protections' own parts that a wrong figure would hide in: the virtual attempts take a fresh interaction each,
// alternate a wrong and the right password per identifier, each user from one address with the device cookie its
// sign-in gave it, and count each answer;
// the evaluation timings are kept between reset and take.
import Fastify from 'fastify';
import formbody from '@fastify/formbody';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attemptLoad, randomIp } from '../../bench/protections/attempt-load.ts';
import { timingCollector } from '../../bench/protections/timings.ts';

const app = Fastify();
const seen: { identifier: string; password: string; ip: string; cookie: string }[] = [];
let interactions = 0;
let origin: string;
beforeAll(async () => {
  await app.register(formbody);
  app.get('/auth', (_r, reply) => reply.header('set-cookie', `_interaction=${++interactions}; path=/`).redirect(`/interaction/${interactions}`, 303));
  app.get('/interaction/:uid', (_r, reply) => reply.type('text/html').send('<form><input type="hidden" name="csrf" value="token" /></form>'));
  app.post<{ Body: Record<string, string> }>('/interaction/:uid/login', (r, reply) => {
    seen.push({ identifier: r.body.identifier!, password: r.body.password!, ip: String(r.headers['x-forwarded-for']), cookie: String(r.headers.cookie) });
    const right = r.body.csrf === 'token' && r.body.password === 'right';
    // A signed-in browser gets the environment's device cookie, as the real pages give it.
    if (right) reply.header('set-cookie', `iam_device=device-of-${r.body.identifier}; Path=/; HttpOnly`);
    return reply.code(right ? 303 : 401).send('');
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});
afterAll(() => app.close());

describe('bench:protections', () => {
  it('makes each attempt on a fresh interaction, a wrong then the right password per identifier, each user from its own address with its device cookie', async () => {
    const result = await attemptLoad({ authorizeUrl: `${origin}/auth`, identifiers: ['a', 'b'], password: 'right', users: 1, duration: 0.3 });
    expect(result.errors).toBe(0);
    expect(result.login.n).toBe(seen.length);
    expect(result.statuses['401']! + (result.statuses['303'] ?? 0)).toBe(seen.length);
    expect(seen.slice(0, 4).map((s) => [s.identifier, s.password])).toEqual([
      ['a', 'not the password'],
      ['a', 'right'],
      ['b', 'not the password'],
      ['b', 'right'],
    ]);
    // A fresh interaction cookie each time; the device cookie once the user signed in; one address per user.
    expect(new Set(seen.map((s) => s.cookie.split('; ')[0])).size).toBe(seen.length);
    expect(seen.slice(0, 2).map((s) => s.cookie.includes('iam_device'))).toEqual([false, false]);
    expect(seen.slice(4).every((s) => s.cookie.includes(`iam_device=device-of-${s.identifier}`))).toBe(true);
    expect(new Set(seen.map((s) => `${s.identifier}|${s.ip}`)).size).toBe(2);
    expect(seen.find((s) => s.identifier === 'a')!.ip).not.toBe(seen.find((s) => s.identifier === 'b')!.ip);
  });

  it('draws unicast client addresses outside 10/8 and 127/8', () => {
    for (let i = 0; i < 1000; i++) {
      const [first] = randomIp().split('.').map(Number);
      expect(first).toBeGreaterThan(0);
      expect(first).toBeLessThanOrEqual(223);
      expect([10, 127]).not.toContain(first);
    }
  });

  it('keeps the evaluation timings between reset and take, per point, the decisions apart from the counting of failures', () => {
    const timings = timingCollector();
    timings.record(5, 'before');
    timings.reset();
    for (let ms = 1; ms <= 100; ms++) timings.record(ms, ms % 2 === 0 ? 'before' : 'succeeded');
    timings.record(7, 'failed');
    expect(timings.take()).toEqual({ n: 100, p50: 50, p95: 95, p99: 99, max: 100 });
    expect(timings.takePoint('before')).toMatchObject({ n: 50, max: 100 });
    expect(timings.takePoint('succeeded')).toMatchObject({ n: 50, max: 99 });
    expect(timings.takePoint('failed')).toMatchObject({ n: 1, max: 7 });
  });
});
