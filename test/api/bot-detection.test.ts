// The bot-detection policy on the hosted sign-in: each sensitivity's threshold over the request's signals, and each
// mode: `block` (403, protection.blocked, a sign_in.bot_detection threat), `silent` (protection.warned only),
// `step_up` (the bot challenge's widget on the login, reset and sign-up pages; a token the verifier accepts lets the
// attempt through; without an active add-on, as `block`), and the cadence of one IP address's posts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFormStamps } from '../../lib/protections/form-stamp.ts';
import { startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { BROWSER, protectedEnvironment, type ProtectedEnvironment } from '../helpers/protection-pages.ts';
import { startSiteverifyFake, type SiteverifyFake } from '../helpers/vendor-fakes/siteverify.ts';

const SECRET = 'hcaptcha-secret-0x0123456789';
const HEADLESS = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36';
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

let ips = 0;
/** A client address of its own, so one post's cadence never adds to another's. */
const freshIp = () => ({ 'x-forwarded-for': `198.18.${Math.floor(++ips / 250)}.${(ips % 250) + 1}` });
const WRONG = 'Wrong user name or password.';
const detecting = async (settings: object, env?: ProtectedEnvironment) => {
  const e = env ?? (await protectedEnvironment(t, token));
  const full = { enabled: true, sensitivity: 'medium', challengeMode: 'block', ...settings };
  await e.put('settings/bot-detection-policy', full, (s) => JSON.stringify(s.protections.bot_detection) === JSON.stringify(full));
  return e;
};
/** A form stamp of a page rendered `ageMs` ago (a person's pace by default). */
const stampOf = (env: ProtectedEnvironment, ageMs = 10_000) => createFormStamps(t.masterKey).of(env.environmentId, Date.now() - ageMs);
const attempt = (env: ProtectedEnvironment, fields: Record<string, string> = {}) => ({
  identifier: 'ada@example.com',
  password: 'not-the-password',
  formStamp: stampOf(env),
  ...fields,
});

describe('bot detection', () => {
  it('refuses (block) from each sensitivity’s threshold: low 4, medium 3, high 2', async () => {
    const env = await detecting({});
    const i = await env.interaction();
    const cases: { name: string; fields?: () => Record<string, string>; headers?: Record<string, string | undefined>; blocked: string }[] = [
      { name: 'a browser', blocked: '' },
      { name: 'headless', headers: { 'user-agent': HEADLESS }, blocked: 'medium high' },
      { name: 'curl', headers: { 'user-agent': 'curl/8.5.0', accept: '*/*', 'accept-language': undefined }, blocked: 'low medium high' },
      { name: 'no stamp, no HTML accept', fields: () => ({ formStamp: '' }), headers: { accept: '*/*' }, blocked: 'high' },
      { name: 'posted too fast', fields: () => ({ formStamp: stampOf(env, 200) }), blocked: 'high' },
      {
        name: 'forged stamp, any language',
        fields: () => ({ formStamp: `${Date.now() - 60_000}.${'A'.repeat(43)}` }),
        headers: { 'accept-language': '*' },
        blocked: 'medium high',
      },
    ];
    for (const sensitivity of ['low', 'medium', 'high'] as const) {
      await detecting({ sensitivity }, env);
      for (const c of cases) {
        const res = await env.post(i, 'login', attempt(env, c.fields?.()), { ...freshIp(), ...c.headers });
        expect([c.name, sensitivity, res.status]).toEqual([c.name, sensitivity, c.blocked.includes(sensitivity) ? 403 : 401]);
        if (res.status === 403) expect(res.body).toContain('This request looks automated and was refused.');
        else expect(res.body).toContain(WRONG);
      }
    }
    const blocked = await env.events('protection.blocked');
    expect(blocked).toHaveLength(9);
    expect(blocked.find((e) => e.data.sensitivity === 'low')!.data).toEqual({
      policy: 'bot_detection',
      flow: 'sign_in',
      reason: 'automation_suspected',
      userId: null,
      login: 'ada@example.com',
      ip: expect.stringMatching(/^198\.18\./),
      userAgent: 'curl/8.5.0',
      threatId: expect.any(String),
      score: 5,
      signals: ['automation_user_agent', 'missing_accept_language', 'missing_accept'],
      sensitivity: 'low',
      challengeMode: 'block',
    });
    const threats = await env.threats();
    expect(threats).toHaveLength(9); // one per IP address subject
    expect(threats[0]).toMatchObject({ category: 'sign_in.bot_detection', severity: 'medium' });
  });

  it('silent: lets the attempt on and records protection.warned only', async () => {
    const env = await detecting({ challengeMode: 'silent' });
    const i = await env.interaction();
    const res = await env.post(i, 'login', attempt(env), { ...freshIp(), 'user-agent': HEADLESS });
    expect(res.status).toBe(401);
    expect(res.body).toContain(WRONG);
    expect((await env.events('protection.warned')).map((e) => e.data)).toEqual([
      expect.objectContaining({
        policy: 'bot_detection',
        reason: 'automation_suspected',
        score: 3,
        signals: ['automation_user_agent'],
        challengeMode: 'silent',
        threatId: null,
      }),
    ]);
    expect(await env.events('protection.blocked')).toEqual([]);
    expect(await env.threats()).toEqual([]);
  });

  it('step_up: without an add-on it blocks; with one the pages show the widget, and a token the verifier accepts lets the attempt through', async () => {
    const env = await detecting({ challengeMode: 'step_up' });
    await env.put('settings/sign-in', { signUpEnabled: true }, (s) => s.signIn?.signUpEnabled === true);
    const i = await env.interaction();
    const headless = { ...freshIp(), 'user-agent': HEADLESS };
    expect((await env.post(i, 'login', attempt(env), headless)).status).toBe(403);
    expect((await env.events('protection.blocked'))[0]!.data).toMatchObject({ challengeMode: 'step_up', challengeUnavailable: true });

    await env.put(
      'add-ons/hcaptcha',
      { active: true, config: { siteKey: 'hc-site', baseUrl: verifier.url }, secrets: { secretKey: SECRET } },
      (s) => s.botChallenge !== null,
    );
    const widget = '<div class="h-captcha" data-sitekey="hc-site"></div>';
    const pages = [
      await env.post(i, 'login', attempt(env), headless),
      await env.post(i, 'reset', { identifier: 'ada@example.com', formStamp: stampOf(env) }, headless),
      await env.post(i, 'sign-up', { email: 'new@example.com', password: 'Correct-horse-9!', formStamp: stampOf(env) }, headless),
    ];
    for (const page of pages) {
      expect(page.status).toBe(401);
      expect(page.body).toContain('Confirm that you are a person, then send the form again.');
      expect(page.body).toContain(widget);
      expect(page.body).toContain('src="https://js.hcaptcha.com/1/api.js"');
      expect(page.body).toMatch(/<input type="hidden" name="formStamp" value="\d{13}\.[\w-]{43}" \/>/);
      expect(page.headers.get('content-security-policy')).toContain('frame-src https://hcaptcha.com https://*.hcaptcha.com');
    }
    const refused = await env.post(i, 'login', attempt(env, { 'h-captcha-response': 'guessed' }), headless);
    expect(refused.status).toBe(401);
    expect(refused.body).toContain('The check could not confirm that you are a person. Try it again.');
    verifier.accept('human-token');
    const passed = await env.post(i, 'login', attempt(env, { 'h-captcha-response': 'human-token' }), headless);
    expect(passed.status).toBe(401);
    expect(passed.body).toContain(WRONG);
    expect(passed.body).not.toContain(widget);
    expect(passed.headers.get('content-security-policy')).not.toContain('hcaptcha');
    expect(verifier.requests.at(-1)!.path).toBe('/siteverify');
    const challenged = await env.events('protection.challenged');
    expect(challenged.map((e) => [e.data.flow, e.data.reason])).toEqual([
      ['sign_in', 'automation_suspected'],
      ['password_reset', 'automation_suspected'],
      ['sign_up', 'automation_suspected'],
      ['sign_in', 'challenge_failed'],
    ]);
  });

  it('counts the cadence of one IP address: a third post within a second is rapid', async () => {
    const env = await detecting({ sensitivity: 'high' });
    const i = await env.interaction();
    const ip = freshIp();
    // Posted together: however slow the machine, they arrive within a second.
    const statuses = (await Promise.all([0, 1, 2].map(() => env.post(i, 'login', attempt(env), ip)))).map((r) => r.status);
    expect(statuses.sort()).toEqual([401, 401, 403]);
    expect((await env.events('protection.blocked'))[0]!.data.signals).toEqual(['rapid_posts']);
  });

  it('renders a fresh form stamp on the factors and reset pages', async () => {
    const env = await protectedEnvironment(t, token);
    const i = await env.interaction();
    const factors = await env.post(i, 'login', { identifier: 'ada@example.com', password: 'x' }, BROWSER);
    const reset = await (await i.jar.fetch(`${i.at}/reset`)).text();
    for (const body of [factors.body, reset]) {
      const stamp = /name="formStamp" value="([^"]+)"/.exec(body)![1]!;
      const reading = createFormStamps(t.masterKey).read(env.environmentId, stamp);
      expect(reading.kind === 'valid' && reading.ageMs).toBeLessThan(5000);
    }
  });
});
