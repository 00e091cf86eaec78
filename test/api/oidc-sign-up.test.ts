// Sign-up on the sign-in pages over HTTP: only where the environment allows it; the code from the test inbox
// verifies the email and signs the new user in; a wrong code, too many attempts, an existing email, and a password
// sign-in before verification.
import * as client from 'openid-client';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { messagesTo, waitForMessage } from '../helpers/inbox.ts';
import { CookieJar, directoryUser, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { codeFlowThroughPages, inputValue, postForm, signInThroughPages } from '../helpers/sign-in.ts';

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

const PASSWORD = 'a brand new password';
const enableSignUp = async (enabled = true) => {
  const res = await t.app.inject({
    method: 'PUT',
    url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/settings/sign-in`,
    headers: bearer(token),
    payload: { signUpEnabled: enabled },
  });
  expect(res.statusCode).toBe(200);
};
const eventsOf = async (type: string) => (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type === type);

async function start(verifier = client.randomPKCECodeVerifier()) {
  const jar = new CookieJar();
  const url = client.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid email',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const at = new URL((await jar.fetch(url)).headers.get('location')!, url).href;
  const body = await (await jar.fetch(at)).text();
  return { at, jar, body, csrf: inputValue(body, 'csrf')!, verifier };
}

async function signUp(email: string) {
  const s = await start();
  const res = await postForm(s.jar, `${s.at}/sign-up`, { csrf: s.csrf, email, displayName: 'Grace', password: PASSWORD });
  const body = await res.text();
  return { ...s, res, page: body, signUp: inputValue(body, 'signUp')! };
}

describe('sign-up', () => {
  it('is not offered, and its pages refuse, unless the environment allows it', async () => {
    const s = await start();
    expect(s.body).not.toContain('/sign-up');
    expect((await s.jar.fetch(`${s.at}/sign-up`)).status).toBe(400);
    expect((await postForm(s.jar, `${s.at}/sign-up`, { csrf: s.csrf, email: 'x@example.com', password: PASSWORD })).status).toBe(400);
    expect(messagesTo(t.app, 'x@example.com')).toEqual([]);
  });

  it('creates the user, sends a code, and the right code verifies the email and signs the user in', async () => {
    await enableSignUp();
    const first = await start();
    expect(first.body).toContain(`<a href="${new URL(first.at).pathname}/sign-up">Create account</a>`);
    const email = `Grace-${crypto.randomUUID().slice(0, 8)}@Example.com`;
    const s = await signUp(email);
    expect(s.res.status).toBe(200);
    expect(s.page).toContain(`We sent a 6-digit code to <strong>${email.toLowerCase()}</strong>.`);
    const message = await waitForMessage(t.app, email, 'sign_up_code');
    expect(message).toMatchObject({ subject: 'Your verification code', environmentId: env.environmentId });
    const code = /\b(\d{6})\b/.exec(message.text)![1]!;

    // Before the code, the password does not sign in.
    const early = await signInThroughPages(
      client.buildAuthorizationUrl(rp, { redirect_uri: REDIRECT_URI, scope: 'openid', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' }),
      { userName: email, password: PASSWORD },
    ).catch((error: Error) => error.message);
    expect(early).toMatch(/sign-in refused/);
    expect((await eventsOf('user.sign_in_failed')).map((e) => e.data.reason)).toEqual(['email_unverified']);

    const wrong = await postForm(s.jar, `${s.at}/verify`, { csrf: s.csrf, signUp: s.signUp, email, code: code === '000000' ? '111111' : '000000' });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('This code is not right.');
    const right = await postForm(s.jar, `${s.at}/verify`, { csrf: s.csrf, signUp: s.signUp, email, code });
    expect(right.status).toBe(303);
    const { callback } = await signInThroughPages(new URL(right.headers.get('location')!, s.at), { userName: email, password: PASSWORD }, s.jar);
    const tokens = await client.authorizationCodeGrant(rp, callback, { pkceCodeVerifier: s.verifier });
    const userId = tokens.claims()!.sub;
    expect(tokens.claims()).toMatchObject({ email: email.toLowerCase(), email_verified: true });

    expect((await eventsOf('directory.user.created')).map((e) => e.data.user)).toEqual([
      expect.objectContaining({ id: userId, userName: email.toLowerCase(), displayName: 'Grace' }),
    ]);
    expect((await eventsOf('user.email_verified')).map((e) => e.data)).toEqual([{ userId, email: email.toLowerCase(), via: 'sign_up' }]);
    expect((await eventsOf('user.signed_up')).map((e) => e.data)).toEqual([{ userId, email: email.toLowerCase(), clientId: env.clientId }]);
    expect((await eventsOf('user.signed_in')).map((e) => e.data.userId)).toEqual([userId]);
    // The code is spent; the password signs in from now on.
    expect((await postForm(s.jar, `${s.at}/verify`, { csrf: s.csrf, signUp: s.signUp, email, code })).status).toBe(400);
    expect((await codeFlowThroughPages(rp, { userName: email, password: PASSWORD })).tokens.claims()!.sub).toBe(userId);
  });

  it('ends a sign-up after 5 wrong codes: the right one no longer works', async () => {
    await enableSignUp();
    const email = `try-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const s = await signUp(email);
    const code = /\b(\d{6})\b/.exec((await waitForMessage(t.app, email, 'sign_up_code')).text)![1]!;
    const wrongCode = code === '000000' ? '111111' : '000000';
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push((await postForm(s.jar, `${s.at}/verify`, { csrf: s.csrf, signUp: s.signUp, email, code: wrongCode })).status);
    expect(answers).toEqual([400, 400, 400, 400, 400]);
    const late = await postForm(s.jar, `${s.at}/verify`, { csrf: s.csrf, signUp: s.signUp, email, code });
    expect(late.status).toBe(400);
    expect(await late.text()).toContain('This code expired or was tried too often.');
    expect(await eventsOf('user.email_verified')).toEqual([]);
  });

  it('answers an email that has an account with the same page, tells its owner by mail, and creates nobody', async () => {
    await enableSignUp();
    const existing = await directoryUser(t, env.environmentId);
    const fresh = await signUp(`new-${crypto.randomUUID().slice(0, 8)}@example.com`);
    const taken = await signUp(existing.userName.toUpperCase());
    expect(taken.res.status).toBe(fresh.res.status);
    const shape = (page: string, email: string, id: string) =>
      page
        .replaceAll(email, 'E')
        .replaceAll(id, 'ID')
        .replace(/nonce-[^']+|nonce="[^"]+"/g, 'N')
        .replace(/interaction\/[^/"]+/g, 'I')
        .replace(/value="[\w-]{43}"/g, 'C');
    expect(shape(taken.page, existing.userName, taken.signUp)).toBe(shape(fresh.page, fresh.page.match(/<strong>([^<]+)<\/strong>/)![1]!, fresh.signUp));
    const notice = await waitForMessage(t.app, existing.userName, 'sign_up_existing_account');
    expect(notice.text).toContain('you already have one');
    expect((await eventsOf('directory.user.created')).length).toBe(1);
    const res = await postForm(taken.jar, `${taken.at}/verify`, { csrf: taken.csrf, signUp: taken.signUp, email: existing.userName, code: '123456' });
    expect(res.status).toBe(400);
  });

  it('refuses a bad email or a short password naming the problem on the page', async () => {
    await enableSignUp();
    const s = await start();
    const bad = await postForm(s.jar, `${s.at}/sign-up`, { csrf: s.csrf, email: 'not-an-email', password: PASSWORD });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toMatch(/role="alert"[^>]*>Enter a valid email address\.<\/p>[\s\S]*id="email"[^>]*aria-invalid="true"/);
    const short = await postForm(s.jar, `${s.at}/sign-up`, { csrf: s.csrf, email: 'ok@example.com', password: 'short' });
    expect(short.status).toBe(400);
    expect(await short.text()).toMatch(/id="password"[^>]*aria-invalid="true"/);
  });

  it('lets the owner of an email take over a sign-up never verified by signing up again (new password, new code)', async () => {
    await enableSignUp();
    const email = `typo-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const squatter = await signUp(email);
    const firstMessage = await waitForMessage(t.app, email, 'sign_up_code');
    const first = /\b(\d{6})\b/.exec(firstMessage.text)![1]!;
    const owner = await signUp(email);
    const secondMessage = await t.app.messages.inbox.waitFor((m) => m.to === email && m.kind === 'sign_up_code' && m !== firstMessage);
    const second = /\b(\d{6})\b/.exec(secondMessage.text)![1]!;
    // The first sign-up's code no longer works.
    expect((await postForm(squatter.jar, `${squatter.at}/verify`, { csrf: squatter.csrf, signUp: squatter.signUp, email, code: first })).status).toBe(400);
    const right = await postForm(owner.jar, `${owner.at}/verify`, { csrf: owner.csrf, signUp: owner.signUp, email, code: second });
    expect(right.status).toBe(303);
    expect((await eventsOf('directory.user.created')).length).toBe(1);
    expect((await eventsOf('user.signed_up')).length).toBe(1);
  });
});
