// The brute-force policy on the hosted sign-in (api/protections/brute-force.ts): failed passwords counted per
// identifier and per IP address, the lockout and the progressive delay refused with 429 and Retry-After before the
// password is looked at, the same answer for unknown identifiers, and the lockout's event and threat.
import { sql } from 'slonik';
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { CookieJar, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { inputValue, setPassword } from '../helpers/sign-in.ts';

let t: OidcTestApp;
let token: string;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
beforeAll(async () => {
  // X-Forwarded-For from the tests' own address is the client's IP address, so each attempt can come from anywhere.
  t = await startOidcApp({ TRUST_PROXY: '127.0.0.1' });
  token = await t.token();
});
beforeEach(async () => {
  env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  rp = await relyingParty(env.issuer, env.clientId, null);
});
afterAll(() => t.close());

const PASSWORD = 'correct horse battery';
const LOCKED = 'Too many failed sign-in attempts. Try again in 15 min.';
let lastIp = 0;
/** A new client IP address for each call. */
const ip = () => `198.51.${Math.floor(++lastIp / 250)}.${(lastIp % 250) + 1}`;
const settings = `/v1/tenants/{t}/environments/{e}/settings/brute-force-policy`;
const url = (path: string) => path.replace('{t}', env.tenantId).replace('{e}', env.environmentId);

async function savePolicy(policy: Record<string, unknown>) {
  const res = await t.app.inject({ method: 'PUT', url: url(settings), headers: bearer(token), payload: policy });
  expect(res.statusCode, res.body).toBe(200);
}

async function newUser(userName = `ada-${crypto.randomUUID().slice(0, 8)}`) {
  const res = await t.app.inject({
    method: 'POST',
    url: url('/v1/tenants/{t}/environments/{e}/directory/users'),
    headers: bearer(token),
    payload: { userName, emails: [{ value: `${userName}@example.com` }] },
  });
  expect(res.statusCode, res.body).toBe(201);
  const user = res.json().user as { id: string; userName: string };
  await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);
  return user;
}

/** One password sign-in through a fresh interaction's login form, from `from`. */
async function signIn(identifier: string, password: string, from = ip()) {
  const jar = new CookieJar();
  const authorize = client.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
  });
  const at = new URL((await jar.fetch(authorize)).headers.get('location')!, authorize).href;
  const csrf = inputValue(await (await jar.fetch(at)).text(), 'csrf')!;
  const res = await jar.fetch(`${at}/login`, {
    method: 'POST',
    body: new URLSearchParams({ csrf, identifier, password }),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': from },
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.text() };
}
const statuses = async (n: number, identifier: (i: number) => string, password: string, from?: () => string) => {
  const seen: number[] = [];
  for (let i = 0; i < n; i++) seen.push((await signIn(identifier(i), password, from?.())).status);
  return seen;
};

const events = async (type: string) => (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type === type);
const threats = async () =>
  (await t.app.inject({ method: 'GET', url: url('/v1/tenants/{t}/environments/{e}/threats'), headers: bearer(token) })).json().threats as Record<
    string,
    unknown
  >[];
const rows = () => t.pool.any(sql.unsafe`SELECT kind, key, failures FROM sign_in_failures WHERE environment_id = ${env.environmentId} ORDER BY kind, key`);
/** Moves the environment's clock on: every lockout and delay has ended. */
const timePasses = (what: 'delay_until' | 'locked_until' = 'delay_until') =>
  t.pool.query(sql.unsafe`UPDATE sign_in_failures SET ${sql.identifier([what])} = now() - interval '1 second',
    expires_at = CASE WHEN ${what} = 'locked_until' THEN now() - interval '1 second' ELSE expires_at END
    WHERE environment_id = ${env.environmentId}`);

describe('the brute-force policy', () => {
  it('locks an identifier out after maxFailures, whatever its case: 429 with Retry-After even for the right password, an event and a threat', async () => {
    await savePolicy({ enabled: true, maxFailures: 3, lockoutMinutes: 15 });
    const user = await newUser();
    const typed = [user.userName, user.userName.toUpperCase(), ` ${user.userName} `];
    expect(await statuses(3, (i) => typed[i]!, 'wrong password')).toEqual([401, 401, 401]);
    const refused = await signIn(user.userName, PASSWORD);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(895);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(900);
    expect(refused.body).toContain(LOCKED);

    const [threat, ...others] = await threats();
    expect(others).toEqual([]);
    expect(threat).toMatchObject({ category: 'sign_in.brute_force', severity: 'medium', subject: `user:${user.id}`, occurrences: 1 });
    const blocked = await events('protection.blocked');
    expect(blocked.map((e) => e.data)).toEqual([
      expect.objectContaining({
        policy: 'brute_force',
        flow: 'sign_in',
        reason: 'locked_out',
        userId: user.id,
        threatId: threat!.id,
        keys: ['identifier'],
        failures: 3,
      }),
      expect.objectContaining({
        policy: 'brute_force',
        reason: 'locked_out',
        userId: null,
        threatId: null,
        keys: ['identifier'],
        retryAfterSeconds: expect.any(Number),
      }),
    ]);
  });

  it('counts an unknown identifier the same way and answers it with the same page', async () => {
    await savePolicy({ enabled: true, maxFailures: 2, lockoutMinutes: 15 });
    const user = await newUser('known-user');
    const known = [await signIn('known-user', 'wrong'), await signIn('known-user', 'wrong'), await signIn('known-user', PASSWORD)];
    const unknown = [await signIn('nobody-here', 'wrong'), await signIn('nobody-here', 'wrong'), await signIn('nobody-here', PASSWORD)];
    expect(unknown.map((r) => [r.status, r.retryAfter !== null])).toEqual(known.map((r) => [r.status, r.retryAfter !== null]));
    expect(unknown.map((r) => [r.status, r.retryAfter !== null])).toEqual([
      [401, false],
      [401, false],
      [429, true],
    ]);
    const page = (body: string, identifier: string) =>
      body
        .replaceAll(identifier, 'X')
        .replace(/(name="csrf" value|name="formStamp" value|nonce)="[^"]*"/g, '')
        .replace(/interaction\/[^/"]+/g, '');
    expect(page(unknown[2]!.body, 'nobody-here')).toBe(page(known[2]!.body, 'known-user'));
    const subjects = (await threats()).map((th) => String(th.subject)).sort();
    expect(subjects).toEqual([expect.stringMatching(/^ip:198\.51\./), `user:${user.id}`]);
  });

  it('locks an IP address out across identifiers, with a high-severity threat', async () => {
    await savePolicy({ enabled: true, maxFailures: 3, lockoutMinutes: 15 });
    const user = await newUser();
    const attacker = '203.0.113.99';
    expect(
      await statuses(
        3,
        (i) => `guess-${i}`,
        'wrong',
        () => attacker,
      ),
    ).toEqual([401, 401, 401]);
    expect((await signIn(user.userName, PASSWORD, attacker)).status).toBe(429);
    expect((await signIn(user.userName, PASSWORD)).status).toBe(303);
    expect(await threats()).toEqual([expect.objectContaining({ category: 'sign_in.brute_force', severity: 'high', subject: `ip:${attacker}` })]);
    const listed = await t.app.inject({ method: 'GET', url: url(`${settings}/lockouts`), headers: bearer(token) });
    expect(listed.json()).toEqual({
      lockouts: [
        { id: expect.any(String), kind: 'ip', key: attacker, userId: null, failures: 3, lastFailureAt: expect.any(String), lockedUntil: expect.any(String) },
      ],
      total: 1,
    });
  });

  it('delays the next attempt 1 s, 2 s, 4 s after each failure with progressiveDelay, without holding the request', async () => {
    await savePolicy({ enabled: true, maxFailures: 10, lockoutMinutes: 15, progressiveDelay: true });
    const user = await newUser();
    const waits: (string | null)[] = [];
    for (let i = 0; i < 3; i++) {
      expect((await signIn(user.userName, 'wrong')).status).toBe(401);
      const early = await signIn(user.userName, PASSWORD);
      expect(early.status).toBe(429);
      waits.push(early.retryAfter);
      if (i === 0) expect(early.body).toContain('Too many failed attempts in a row. Wait 1 s before you try again.');
      await timePasses();
    }
    expect(waits).toEqual(['1', '2', '4']);
    expect((await signIn(user.userName, PASSWORD)).status).toBe(303);
    expect((await events('protection.blocked')).map((e) => e.data.reason)).toEqual(['progressive_delay', 'progressive_delay', 'progressive_delay']);
  });

  it('starts the count again after a good password, and after a lockout has ended', async () => {
    await savePolicy({ enabled: true, maxFailures: 3, lockoutMinutes: 15 });
    const user = await newUser();
    expect(await statuses(2, () => user.userName, 'wrong')).toEqual([401, 401]);
    expect((await signIn(user.userName, PASSWORD)).status).toBe(303);
    expect(await statuses(2, () => user.userName, 'wrong')).toEqual([401, 401]);
    expect((await signIn(user.userName, PASSWORD)).status).toBe(303);
    expect(await statuses(3, () => user.userName, 'wrong')).toEqual([401, 401, 401]);
    expect((await signIn(user.userName, PASSWORD)).status).toBe(429);
    await timePasses('locked_until');
    expect(await statuses(2, () => user.userName, 'wrong')).toEqual([401, 401]);
    expect(await rows()).toEqual(expect.arrayContaining([{ kind: 'identifier', key: user.userName, failures: 2 }]));
    expect((await signIn(user.userName, PASSWORD)).status).toBe(303);
  });

  it('lets an operator list a user’s lockout and end it (audited, brute_force.unlocked)', async () => {
    await savePolicy({ enabled: true, maxFailures: 2, lockoutMinutes: 30 });
    const user = await newUser();
    await statuses(2, () => user.userName, 'wrong');
    const listed = await t.app.inject({ method: 'GET', url: url(`${settings}/lockouts?userId=${user.id}`), headers: bearer(token) });
    expect(listed.statusCode).toBe(200);
    const [lockout] = listed.json().lockouts as { id: string; lockedUntil: string }[];
    expect(lockout).toMatchObject({ kind: 'identifier', key: user.userName, userId: user.id, failures: 2 });
    expect(Date.parse(lockout!.lockedUntil) - Date.now()).toBeGreaterThan(29 * 60_000);
    expect((await signIn(user.userName, PASSWORD)).status).toBe(429);

    const unlocked = await t.app.inject({ method: 'DELETE', url: url(`${settings}/lockouts/${lockout!.id}`), headers: bearer(token) });
    expect(unlocked.statusCode, unlocked.body).toBe(200);
    expect(unlocked.json().lockout).toEqual(listed.json().lockouts[0]);
    expect((await signIn(user.userName, PASSWORD)).status).toBe(303);
    const again = await t.app.inject({ method: 'DELETE', url: url(`${settings}/lockouts/${lockout!.id}`), headers: bearer(token) });
    expect([again.statusCode, again.json().code]).toEqual([404, 'brute_force_lockout.not_found']);
    const [event] = await events('brute_force.unlocked');
    expect(event!.data).toMatchObject({ lockoutId: lockout!.id, kind: 'identifier', key: user.userName, userId: user.id, failures: 2 });
    const [entry] = await auditEntries(t, { tenantId: env.tenantId }, { action: 'brute_force.unlock' });
    expect(entry).toMatchObject({ resource: { type: 'user', id: user.id }, changes: { before: { kind: 'identifier', value: user.userName }, after: null } });
    const reader = await t.token('environment-settings:read');
    const denied = await t.app.inject({ method: 'DELETE', url: url(`${settings}/lockouts/${lockout!.id}`), headers: bearer(reader) });
    expect(denied.statusCode).toBe(403);
  });

  it('writes nothing while off (never saved, or saved disabled)', async () => {
    const user = await newUser();
    expect(await statuses(3, () => user.userName, 'wrong')).toEqual([401, 401, 401]);
    await savePolicy({ enabled: false, maxFailures: 1 });
    expect(await statuses(3, () => user.userName, 'wrong')).toEqual([401, 401, 401]);
    expect((await signIn(user.userName, PASSWORD)).status).toBe(303);
    expect(await rows()).toEqual([]);
    expect(await events('protection.blocked')).toEqual([]);
  });

  it('counts two concurrent failures as two', async () => {
    await savePolicy({ enabled: true, maxFailures: 10 });
    const user = await newUser();
    const answers = await Promise.all([signIn(user.userName, 'wrong', '192.0.2.1'), signIn(user.userName, 'wrong', '192.0.2.1')]);
    expect(answers.map((a) => a.status)).toEqual([401, 401]);
    expect(await rows()).toEqual([
      { kind: 'identifier', key: user.userName, failures: 2 },
      { kind: 'ip', key: '192.0.2.1', failures: 2 },
    ]);
  });
});
