// The FGA API takes two kinds of credential, each rate limited as it is elsewhere: an environment API secret per
// credential (RATE_LIMIT_API_SECRET_MAX), a management token per principal (RATE_LIMIT_MAX).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { fgaStore, type FgaStore } from '../helpers/fga.ts';

let t: TestApp;
let store: FgaStore;
let token: string;

beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_MAX: '40', RATE_LIMIT_API_SECRET_MAX: '60' });
  store = await fgaStore(t);
  token = await t.token('fga:read');
});
afterAll(() => t?.close());

const statuses = async (n: number, credential: string) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await store.call('GET', '', undefined, credential)).statusCode);
  return out;
};

describe('FGA rate limits', () => {
  it('counts a management token per principal and a secret per credential', async () => {
    const byToken = await statuses(45, token);
    expect(byToken.filter((s) => s === 200).length).toBeLessThanOrEqual(40);
    expect(byToken.at(-1)).toBe(429);
    const bySecret = await statuses(65, store.secret);
    expect(bySecret.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(bySecret.at(-1)).toBe(429);
    const limited = await store.call('GET', '', undefined, store.secret);
    expect(limited.json()).toMatchObject({ code: 'rate_limit_exceeded', message: expect.any(String) });
  });
});
