// Email code sign-in over HTTP: offered only where the environment turns it on; the code and the magic link from the
// test inbox sign in (amr otp + email); a wrong, expired, exhausted or used code is refused with its event; a new
// code at most every 30 s per sign-in; an unknown identifier gets the same page and no message.
import { sql } from 'slonik';
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEmailCodeService } from '../../api/email-codes/service.ts';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { messagesTo, waitForMessage } from '../helpers/inbox.ts';
import { CookieJar, directoryUser, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { inputValue, postForm, signInThroughPages } from '../helpers/sign-in.ts';

let t: OidcTestApp;
let token: string;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
let rp: client.Configuration;
beforeAll(async () => {
  t = await startOidcApp({ LOG_LEVEL: 'error' });
  token = await t.token();
});
beforeEach(async () => {
  env = await oidcEnvironment(t, { tokenEndpointAuthMethod: 'none' });
  rp = await relyingParty(env.issuer, env.clientId, null);
});
afterAll(() => t.close());

const enableEmailCode = async (enabled = true) => {
  const res = await t.app.inject({
    method: 'PUT',
    url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/settings/sign-in`,
    headers: bearer(token),
    payload: { emailCodeEnabled: enabled },
  });
  expect(res.statusCode, res.body).toBe(200);
};
const eventsOf = async (type: string) => (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type === type);
const failures = async () => (await eventsOf('user.sign_in_failed')).map((e) => e.data.reason);

/** An authorization request up to the factors page of `identifier`. */
async function factors(identifier: string, parameters: Record<string, string> = {}, jar = new CookieJar()) {
  const verifier = client.randomPKCECodeVerifier();
  const url = client.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...parameters,
  });
  const at = new URL((await jar.fetch(url)).headers.get('location')!, url).href;
  const csrf = inputValue(await (await jar.fetch(at)).text(), 'csrf')!;
  const res = await postForm(jar, `${at}/identifier`, { csrf, identifier });
  return { at, jar, csrf, verifier, identifier, status: res.status, body: await res.text() };
}
type Flow = Awaited<ReturnType<typeof factors>>;

const send = async (f: Flow) => {
  const res = await postForm(f.jar, `${f.at}/email-code/send`, { csrf: f.csrf, identifier: f.identifier });
  return { status: res.status, body: await res.text() };
};
const enter = (f: Flow, code: string) => postForm(f.jar, `${f.at}/email-code`, { csrf: f.csrf, identifier: f.identifier, code });
const codeOf = (text: string) => /\b(\d{6})\b/.exec(text)![1]!;
const linkOf = (text: string) => /(https?:\/\/\S+\/email-code\/[\w-]+)/.exec(text)![1]!;
const otherCode = (code: string) => (code === '000000' ? '111111' : '000000');

/** Follows a 303 after the code through consent to the callback and exchanges the code. */
async function complete(f: Flow, res: Response) {
  expect(res.status).toBe(303);
  const { callback } = await signInThroughPages(new URL(res.headers.get('location')!, f.at), { userName: f.identifier, password: '' }, f.jar);
  return client.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: f.verifier });
}

describe('email code sign-in', () => {
  it('is not offered, and its routes refuse, unless the environment turns it on', async () => {
    const user = await directoryUser(t, env.environmentId);
    const f = await factors(user.userName);
    expect(f.body).not.toContain('Email me a code');
    expect((await send(f)).status).toBe(400);
    expect((await enter(f, '123456')).status).toBe(400);
    expect(messagesTo(t.app, user.userName)).toEqual([]);
  });

  it('sends a code in the sign-in’s locale; the right code signs the user in with amr otp + email', async () => {
    await enableEmailCode();
    const user = await directoryUser(t, env.environmentId);
    const f = await factors(user.userName);
    expect(f.body).toContain('>Email me a code</button>');
    const page = await send(f);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`If an account exists for <strong>${user.userName}</strong>, we sent a 6-digit code`);
    expect(page.body).toMatch(/<input id="code" name="code" type="text" autocomplete="one-time-code" required autofocus inputmode="numeric"/);
    const message = await waitForMessage(t.app, user.userName, 'sign_in_code');
    expect(message).toMatchObject({ subject: 'Your sign-in code', environmentId: env.environmentId });
    expect(linkOf(message.text)).toMatch(new RegExp(`^${f.at}/email-code/[\\w-]{43}$`));
    const sent = (await eventsOf('user.email_code_sent')).map((e) => e.data);
    expect(sent).toEqual([{ userId: user.id, clientId: env.clientId, email: user.userName, expiresAt: expect.stringMatching(/^\d{4}-/), ip: '127.0.0.1' }]);

    const tokens = await complete(f, await enter(f, ` ${codeOf(message.text)} `));
    expect(tokens.claims()).toMatchObject({ sub: user.id, amr: ['otp', 'email'] });
    expect((await eventsOf('user.signed_in')).map((e) => e.data)).toEqual([
      { userId: user.id, clientId: env.clientId, amr: ['otp', 'email'], ip: '127.0.0.1', remember: false, secondFactor: null },
    ]);

    const german = await factors(user.userName, { ui_locales: 'de' });
    expect((await send(german)).body).toContain('Falls ein Konto für');
    // The second message to this user (the page answers before the message is rendered and handed over).
    await t.app.messages.inbox.waitFor(() => messagesTo(t.app, user.userName).length === 2);
    expect(messagesTo(t.app, user.userName).at(-1)!.subject).toBe('Ihr Anmeldecode');
  });

  it('asks no second factor when a session that signed in by email code must sign in again (prompt=login) under policy off', async () => {
    await enableEmailCode();
    const user = await directoryUser(t, env.environmentId);
    const f = await factors(user.userName);
    await send(f);
    const first = await waitForMessage(t.app, user.userName, 'sign_in_code');
    await complete(f, await enter(f, codeOf(first.text)));

    const again = await factors(user.userName, { prompt: 'login' }, f.jar);
    await send(again);
    const second = await t.app.messages.inbox.waitFor((m) => m.to === user.userName && m.kind === 'sign_in_code' && m !== first);
    const res = await enter(again, codeOf(second.text));
    expect(res.headers.get('location')).not.toMatch(/\/mfa$/);
    const tokens = await complete(again, res);
    expect(tokens.claims()).toMatchObject({ sub: user.id, amr: ['otp', 'email'] });
  });

  it('signs in through the magic link in the same browser; another browser is told to go back to the first tab', async () => {
    await enableEmailCode();
    const user = await directoryUser(t, env.environmentId);
    const f = await factors(user.userName);
    await send(f);
    const link = linkOf((await waitForMessage(t.app, user.userName, 'sign_in_code')).text);

    const elsewhere = await new CookieJar().fetch(link);
    expect(elsewhere.status).toBe(200);
    const body = await elsewhere.text();
    expect(body).toContain('<h1>Go back to your first tab</h1>');
    expect(body).toContain('This link only works in the browser where you started signing in.');
    expect(await eventsOf('user.signed_in')).toEqual([]);

    const tokens = await complete(f, await f.jar.fetch(link));
    expect(tokens.claims()).toMatchObject({ sub: user.id, amr: ['otp', 'email'] });
  });

  it('refuses a wrong code (401, sign_in_failed wrong_code), then an expired one (400, code_expired)', async () => {
    await enableEmailCode();
    const user = await directoryUser(t, env.environmentId);
    const f = await factors(user.userName);
    await send(f);
    const code = codeOf((await waitForMessage(t.app, user.userName, 'sign_in_code')).text);
    const wrong = await enter(f, otherCode(code));
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('This code is not right. Check it and try again.');
    await t.pool.query(sql.unsafe`UPDATE sign_in_email_codes SET expires_at = now() - interval '1 second' WHERE environment_id = ${env.environmentId}`);
    const expired = await enter(f, code);
    expect(expired.status).toBe(400);
    expect(await expired.text()).toContain('This code expired, was already used or was tried too often. Ask for a new one.');
    expect(await failures()).toEqual(['wrong_code', 'code_expired']);
    expect((await f.jar.fetch(linkOf(messagesTo(t.app, user.userName)[0]!.text))).status).toBe(400);
    expect(await eventsOf('user.signed_in')).toEqual([]);
  });

  it('ends a code after 5 wrong attempts: the right code and the link no longer work', async () => {
    await enableEmailCode();
    const user = await directoryUser(t, env.environmentId);
    const f = await factors(user.userName);
    await send(f);
    const message = await waitForMessage(t.app, user.userName, 'sign_in_code');
    const code = codeOf(message.text);
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push((await enter(f, otherCode(code))).status);
    expect(answers).toEqual([401, 401, 401, 401, 400]);
    expect((await enter(f, code)).status).toBe(400);
    const link = await f.jar.fetch(linkOf(message.text));
    expect(link.status).toBe(400);
    expect(await link.text()).toContain('<h1>This link can no longer be used</h1>');
    expect(await failures()).toEqual([...Array(5).fill('wrong_code'), 'code_attempts_exhausted', 'code_attempts_exhausted']);
  });

  it('uses a code once: the link after the code is refused', async () => {
    await enableEmailCode();
    const user = await directoryUser(t, env.environmentId);
    const f = await factors(user.userName);
    await send(f);
    const message = await waitForMessage(t.app, user.userName, 'sign_in_code');
    const first = await enter(f, codeOf(message.text));
    expect(first.status).toBe(303);
    const again = await f.jar.fetch(linkOf(message.text));
    expect(again.status).toBe(400);
    expect(await again.text()).toContain('<h1>This link can no longer be used</h1>');
    // The link and the same code once more at the same sign-in (as a second tab's submit racing the first would be): used.
    const emailCodes = createEmailCodeService({ pool: t.pool, sender: { send: async () => {} }, publicBaseUrl: t.baseUrl, log: console });
    const uid = new URL(f.at).pathname.split('/').at(-1)!;
    const signIn = { provider: await t.app.oidc.get(env.environmentId), environmentId: env.environmentId, uid, clientId: env.clientId, origin: {} };
    expect(await emailCodes.verifyCode(signIn, codeOf(message.text))).toEqual({ kind: 'gone' });
    expect(await failures()).toEqual(['code_used', 'code_used']);
    expect((await eventsOf('user.signed_in')).length).toBe(1);
  });

  it('sends a new code at most every 30 s per sign-in; the new code replaces the old one', async () => {
    await enableEmailCode();
    const user = await directoryUser(t, env.environmentId);
    const f = await factors(user.userName);
    // Two at once: one sends, the other is too soon.
    const both = await Promise.all([send(f), send(f)]);
    expect(both.map((p) => p.status).sort()).toEqual([200, 429]);
    const old = codeOf((await waitForMessage(t.app, user.userName, 'sign_in_code')).text);
    const soon = await send(f);
    expect(soon.status).toBe(429);
    expect(soon.body).toContain('A code was sent less than 30 seconds ago.');
    expect(messagesTo(t.app, user.userName).length).toBe(1);

    await t.pool.query(sql.unsafe`UPDATE sign_in_email_codes SET sent_at = now() - interval '31 seconds' WHERE environment_id = ${env.environmentId}`);
    expect((await send(f)).status).toBe(200);
    await expect.poll(() => messagesTo(t.app, user.userName).length).toBe(2);
    const fresh = codeOf(messagesTo(t.app, user.userName)[1]!.text);
    if (fresh !== old) expect((await enter(f, old)).status).toBe(401);
    await complete(f, await enter(f, fresh));
    expect((await eventsOf('user.email_code_sent')).length).toBe(2);
  });

  it('answers an unknown identifier with the same pages and sends nothing', async () => {
    await enableEmailCode();
    const user = await directoryUser(t, env.environmentId);
    const unknown = `nobody-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const known = await factors(user.userName);
    const stranger = await factors(unknown);
    const shape = (body: string, identifier: string) =>
      body
        .replaceAll(identifier, 'E')
        .replace(/nonce-[^']+|nonce="[^"]+"/g, 'N')
        .replace(/interaction\/[^/"]+/g, 'I')
        .replace(/name="formStamp" value="[^"]+"/g, 'S') // the render time (bot detection's form stamp)
        .replace(/value="[\w-]{43}"/g, 'C');
    expect(stranger.status).toBe(known.status);
    expect(shape(stranger.body, unknown)).toBe(shape(known.body, user.userName));
    const [a, b] = [await send(known), await send(stranger)];
    expect(b.status).toBe(a.status);
    expect(shape(b.body, unknown)).toBe(shape(a.body, user.userName));
    const [c, d] = [await send(known), await send(stranger)];
    expect([c.status, d.status]).toEqual([429, 429]);
    expect(shape(d.body, unknown)).toBe(shape(c.body, user.userName));

    const wrong = await enter(stranger, '123456');
    expect(wrong.status).toBe(401);
    expect(messagesTo(t.app, unknown)).toEqual([]);
    expect((await eventsOf('user.email_code_sent')).map((e) => e.data.userId)).toEqual([user.id]);
    expect((await eventsOf('user.sign_in_failed')).map((e) => [e.data.userId, e.data.login, e.data.reason])).toEqual([[null, unknown, 'unknown_user']]);
  });
});
