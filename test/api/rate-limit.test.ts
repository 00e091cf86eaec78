// The rate-limit policy on the hosted sign-in: attempts counted per flow and key (ip, ip_user, user) in Postgres,
// over the limit a 429 page with Retry-After (the window's end), a protection.blocked event and a sign_in.rate_limit
// threat; `action: challenge` shows the bot challenge, whose passed token lets that attempt through; the OIDC
// clean-up deletes ended windows.
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOidcCleanupActivities } from '../../activities/oidc-cleanup.ts';
import { startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { protectedEnvironment } from '../helpers/protection-pages.ts';
import { startSiteverifyFake, type SiteverifyFake } from '../helpers/vendor-fakes/siteverify.ts';

const SECRET = 'turnstile-secret-0123456789';
let t: OidcTestApp;
let token: string;
let verifier: SiteverifyFake;
beforeAll(async () => {
  t = await startOidcApp({ LOG_LEVEL: 'error', TRUST_PROXY: 'true', ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
  token = await t.token();
  verifier = await startSiteverifyFake(SECRET);
});
afterAll(async () => {
  await verifier.close();
  await t.close();
});

const WRONG = 'Wrong user name or password.';
const policy = (settings: object) => ({ enabled: true, windowSeconds: 60, maxAttempts: 2, ...settings });
const limited = async (settings: object) => {
  const env = await protectedEnvironment(t, token);
  const full = policy(settings);
  await env.put('settings/rate-limit-policy', full, (s) => s.protections.rate_limit?.enabled === true);
  return env;
};
const login = (identifier: string) => ({ identifier, password: 'not-the-password' });
const from = (ip: string) => ({ 'x-forwarded-for': ip });

describe('rate limit', () => {
  it('scope ip: the attempt over maxAttempts is a 429 page with Retry-After, an event and a threat; other IPs and flows are counted apart', async () => {
    const env = await limited({ scope: 'ip' });
    const i = await env.interaction();
    for (const user of ['ada@example.com', 'bob@example.com']) {
      const res = await env.post(i, 'login', login(user), from('203.0.113.5'));
      expect(res.status).toBe(401);
      expect(res.body).toContain(WRONG);
    }
    const over = await env.post(i, 'login', login('cy@example.com'), from('203.0.113.5'));
    expect(over.status).toBe(429);
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(50); // the window started at the first attempt
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(over.body).toContain(`Too many attempts. Try again in ${retryAfter} seconds.`);
    expect((await env.post(i, 'login', login('ada@example.com'), from('203.0.113.6'))).status).toBe(401);
    // The reset flow has its own count.
    expect((await env.post(i, 'reset', { identifier: 'ada@example.com' }, from('203.0.113.5'))).status).toBe(200);

    const [blocked] = await env.events('protection.blocked');
    const [threat] = await env.threats();
    expect(blocked!.data).toEqual({
      policy: 'rate_limit',
      flow: 'sign_in',
      reason: 'too_many_attempts',
      userId: null,
      login: 'cy@example.com',
      ip: '203.0.113.5',
      userAgent: expect.stringContaining('Chrome/131'),
      threatId: threat!.id,
      scope: 'ip',
      attempts: 3,
      maxAttempts: 2,
      windowSeconds: 60,
      action: 'deny',
      retryAfterSeconds: retryAfter,
    });
    expect(threat).toMatchObject({ category: 'sign_in.rate_limit', subject: 'ip:203.0.113.5', severity: 'medium', occurrences: 1 });
  });

  it('scope user counts an identifier across IPs; ip_user counts each pair; the flows a policy does not apply to are not counted', async () => {
    const byUser = await limited({ scope: 'user', maxAttempts: 1 });
    const i = await byUser.interaction();
    expect((await byUser.post(i, 'login', login('Ada@Example.com'), from('198.51.100.1'))).status).toBe(401);
    expect((await byUser.post(i, 'login', login('ada@example.com'), from('198.51.100.2'))).status).toBe(429);
    expect((await byUser.post(i, 'login', login('bob@example.com'), from('198.51.100.2'))).status).toBe(401);

    const pairs = await limited({ scope: 'ip_user', maxAttempts: 1, applySignIn: false });
    const j = await pairs.interaction();
    for (let n = 0; n < 3; n++) expect((await pairs.post(j, 'login', login('ada@example.com'), from('198.51.100.1'))).status).toBe(401);
    expect((await pairs.post(j, 'reset', { identifier: 'ada@example.com' }, from('198.51.100.1'))).status).toBe(200);
    expect((await pairs.post(j, 'reset', { identifier: 'bob@example.com' }, from('198.51.100.1'))).status).toBe(200);
    expect((await pairs.post(j, 'reset', { identifier: 'ada@example.com' }, from('198.51.100.3'))).status).toBe(200);
    const over = await pairs.post(j, 'reset', { identifier: 'ada@example.com' }, from('198.51.100.1'));
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await pairs.events('protection.blocked')).map((e) => [e.data.flow, e.data.scope, e.data.login])).toEqual([
      ['password_reset', 'ip_user', 'ada@example.com'],
    ]);
  });

  it('counts sign-ups (applySignUp) on their own: the page again with 429 and the address kept', async () => {
    const env = await limited({ scope: 'ip', maxAttempts: 1, applySignIn: false });
    await env.put('settings/sign-in', { signUpEnabled: true }, (s) => s.signIn?.signUpEnabled === true);
    const i = await env.interaction();
    const ip = from('192.0.2.30');
    const signUp = (email: string) => env.post(i, 'sign-up', { email, password: 'Correct-horse-9!' }, ip);
    expect((await signUp('first@example.com')).status).toBe(200);
    expect((await env.post(i, 'login', login('ada@example.com'), ip)).status).toBe(401);
    const over = await signUp('second@example.com');
    expect(over.status).toBe(429);
    expect(over.body).toContain('value="second@example.com"');
    expect((await env.events('protection.blocked')).map((e) => e.data.flow)).toEqual(['sign_up']);
  });

  it('action challenge: without an active bot challenge it denies; with one it shows the widget, and a token the verifier accepts lets that attempt through', async () => {
    const env = await limited({ scope: 'ip', maxAttempts: 1, action: 'challenge' });
    const i = await env.interaction();
    const ip = from('192.0.2.10');
    expect((await env.post(i, 'login', login('ada@example.com'), ip)).status).toBe(401);
    const denied = await env.post(i, 'login', login('ada@example.com'), ip);
    expect(denied.status).toBe(429);
    expect((await env.events('protection.blocked'))[0]!.data).toMatchObject({ reason: 'too_many_attempts', action: 'challenge', challengeUnavailable: true });

    await env.put(
      'add-ons/turnstile',
      { active: true, config: { siteKey: 'site-key-1', baseUrl: verifier.url }, secrets: { secretKey: SECRET } },
      (s) => s.botChallenge !== null,
    );
    const asked = await env.post(i, 'login', login('ada@example.com'), ip);
    expect(asked.status).toBe(401);
    expect(asked.body).toContain('Confirm that you are a person, then send the form again.');
    expect(asked.body).toContain('<div class="cf-turnstile" data-sitekey="site-key-1"></div>');
    expect(asked.body).toContain('src="https://challenges.cloudflare.com/turnstile/v0/api.js"');
    expect(asked.headers.get('content-security-policy')).toContain('frame-src https://challenges.cloudflare.com');
    expect(asked.headers.get('content-security-policy')).toMatch(/script-src 'nonce-[^']+' https:\/\/challenges\.cloudflare\.com/);

    const refused = await env.post(i, 'login', { ...login('ada@example.com'), 'cf-turnstile-response': 'made-up' }, ip);
    expect(refused.status).toBe(401);
    expect(refused.body).toContain('The check could not confirm that you are a person. Try it again.');
    verifier.accept('solved-token');
    const passed = await env.post(i, 'login', { ...login('ada@example.com'), 'cf-turnstile-response': 'solved-token' }, ip);
    expect(passed.status).toBe(401);
    expect(passed.body).toContain(WRONG);
    expect(verifier.requests.at(-1)).toEqual({
      path: '/turnstile/v0/siteverify',
      contentType: 'application/x-www-form-urlencoded',
      form: { secret: SECRET, response: 'solved-token', remoteip: '192.0.2.10' },
    });
    // A token passes once: replayed, the challenge is asked again.
    expect((await env.post(i, 'login', { ...login('ada@example.com'), 'cf-turnstile-response': 'solved-token' }, ip)).status).toBe(401);
    const challenged = await env.events('protection.challenged');
    expect(challenged.map((e) => [e.data.reason, e.data.errorCodes])).toEqual([
      ['too_many_attempts', undefined],
      ['challenge_failed', ['invalid-input-response']],
      ['challenge_failed', ['timeout-or-duplicate']],
    ]);
    expect(await env.threats()).toHaveLength(1); // only the denial opened one
  });

  it('a window that ended starts again at one, and the OIDC clean-up deletes ended windows', async () => {
    const env = await limited({ scope: 'ip', maxAttempts: 1 });
    const i = await env.interaction();
    const ip = from('192.0.2.20');
    expect((await env.post(i, 'login', login('ada@example.com'), ip)).status).toBe(401);
    expect((await env.post(i, 'login', login('ada@example.com'), ip)).status).toBe(429);
    const end = sql.unsafe`UPDATE sign_in_rate_counters SET window_ends_at = now() - interval '1 second' WHERE environment_id = ${env.environmentId}`;
    await t.pool.query(end);
    expect((await env.post(i, 'login', login('ada@example.com'), ip)).status).toBe(401);
    await t.pool.query(end);
    const counts = await createOidcCleanupActivities({ pool: t.pool }).cleanUpOidc({});
    expect(counts.rateCounters).toBeGreaterThanOrEqual(1);
    const left = await t.pool.anyFirst(sql.unsafe`SELECT key FROM sign_in_rate_counters WHERE environment_id = ${env.environmentId}`);
    expect(left).toEqual([]);
  });
});
