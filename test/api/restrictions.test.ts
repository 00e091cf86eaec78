// The sign-up restrictions through the real sign-in pages: off allows everything; `closed` hides sign-up;
// `invite_only` lets in only an address with a pending invitation into the environment's tenant; the block and allow
// lists (with subdomains), sub-addresses and disposable domains refuse sign-up with a 403 naming the rule, and
// sign-in too with `applyToSignins` (an email identifier, or the email of the user a user name names). Each refusal
// is audited with `protection.blocked`; a block-listed or disposable domain opens a low-severity threat per IP.
import * as client from 'openid-client';
import { sql } from 'slonik';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { messagesTo } from '../helpers/inbox.ts';
import { CookieJar, directoryUser, oidcEnvironment, REDIRECT_URI, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';
import { inputValue, postForm, setPassword } from '../helpers/sign-in.ts';

const PASSWORD = 'correct horse battery';
const TEXT = {
  closed: 'Sign-up is closed here. Ask the administrator for access.',
  invite: 'Sign-up here is by invitation only, and there is no pending invitation for this email address.',
  notAllowed: 'Only email addresses at approved domains can be used here.',
  blocked: 'Email addresses at this domain cannot be used here.',
  subaddress: 'Email addresses with a “+” sub-address (like name+tag@example.com) cannot be used here. Use your address without it.',
  disposable: 'Disposable email addresses cannot be used here. Use a permanent email address.',
  disposableDe: 'Wegwerf-E-Mail-Adressen können hier nicht verwendet werden. Verwenden Sie eine dauerhafte E-Mail-Adresse.',
};

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
  const res = await t.app.inject({ method: 'PUT', url: `${settings()}/sign-in`, headers: bearer(token), payload: { signUpEnabled: true } });
  expect(res.statusCode).toBe(200);
});
afterAll(() => t.close());

const settings = () => `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/settings`;
const restrict = async (body: Record<string, unknown>) => {
  const res = await t.app.inject({ method: 'PUT', url: `${settings()}/restrictions`, headers: bearer(token), payload: body });
  expect(res.statusCode).toBe(200);
};
const unique = (local: string, domain: string) => `${local}-${crypto.randomUUID().slice(0, 8)}@${domain}`;
const protectionEvents = async () =>
  (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.type.startsWith('protection.') || e.type.startsWith('threat.'));
const blockedReasons = async () => (await protectionEvents()).filter((e) => e.type === 'protection.blocked').map((e) => [e.data.flow, e.data.reason]);

/** The identifier page of a fresh authorization request. */
async function start(headers: Record<string, string> = {}) {
  const jar = new CookieJar();
  const url = client.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid',
    code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
    code_challenge_method: 'S256',
  });
  const at = new URL((await jar.fetch(url)).headers.get('location')!, url).href;
  const body = await (await jar.fetch(at, { headers })).text();
  return { jar, at, body, csrf: inputValue(body, 'csrf')! };
}

async function signUp(email: string, headers: Record<string, string> = {}) {
  const s = await start(headers);
  const res = await s.jar.fetch(`${s.at}/sign-up`, {
    method: 'POST',
    body: new URLSearchParams({ csrf: s.csrf, email, displayName: 'Ada', password: PASSWORD }),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
  return { status: res.status, body: await res.text() };
}

async function signIn(identifier: string) {
  const s = await start();
  const res = await postForm(s.jar, `${s.at}/login`, { csrf: s.csrf, identifier, password: PASSWORD });
  return { status: res.status, body: res.status === 303 ? '' : await res.text() };
}

describe('restrictions', () => {
  it('off (never saved, or all defaults): any address signs up and nothing is recorded', async () => {
    expect((await signUp(unique('a+tag', 'mailinator.com'))).status).toBe(200);
    await restrict({});
    expect((await signUp(unique('b+tag', 'mailinator.com'))).status).toBe(200);
    expect(await protectionEvents()).toEqual([]);
  });

  it('closed: the identifier page offers no sign-up and its pages answer like an environment without sign-up', async () => {
    expect((await start()).body).toContain('/sign-up');
    await restrict({ signupMode: 'closed' });
    const s = await start();
    expect(s.body).not.toContain('/sign-up');
    expect((await s.jar.fetch(`${s.at}/sign-up`)).status).toBe(400);
    const email = unique('closed', 'example.com');
    expect((await postForm(s.jar, `${s.at}/sign-up`, { csrf: s.csrf, email, password: PASSWORD })).status).toBe(400);
    expect(messagesTo(t.app, email)).toEqual([]);
  });

  it('invite_only: only an address with a pending tenant invite or organization invitation signs up', async () => {
    await restrict({ signupMode: 'invite_only' });
    const stranger = await signUp(unique('stranger', 'example.com'));
    expect(stranger.status).toBe(403);
    expect(stranger.body).toContain(TEXT.invite);

    const seat = unique('Seat', 'Example.com');
    const invite = await t.app.inject({ method: 'POST', url: `/v1/tenants/${env.tenantId}/invites`, headers: bearer(token), payload: { email: seat } });
    expect(invite.statusCode).toBeLessThan(300);
    expect((await signUp(seat)).status).toBe(200);

    const { organizationId } = t.credentials;
    const url = `/v1/organizations/${organizationId}/invitations`;
    const member = unique('member', 'example.com');
    const named = await t.app.inject({ method: 'POST', url, headers: bearer(token), payload: { email: member, tenantAccess: [env.tenantId] } });
    expect(named.statusCode).toBe(201);
    expect((await signUp(member)).status).toBe(200);
    const everywhere = unique('everywhere', 'example.com');
    expect((await t.app.inject({ method: 'POST', url, headers: bearer(token), payload: { email: everywhere } })).statusCode).toBe(201);
    expect((await signUp(everywhere)).status).toBe(200);
    expect((await signUp(unique('stranger', 'example.com'))).status).toBe(403);
    expect(await blockedReasons()).toEqual([
      ['sign_up', 'invite_only'],
      ['sign_up', 'invite_only'],
    ]);
  });

  it('block and allow lists match their domains and subdomains; sub-addresses; each refusal names the rule with protection.blocked', async () => {
    await restrict({
      blocklistEnabled: true,
      blocklistDomains: 'blocked-mail.com, @Corp-Example.net',
      allowlistEnabled: true,
      allowlistDomains: 'example.com\ncorp-example.net',
      blockEmailSubaddresses: true,
    });
    const refused = [
      [unique('a', 'blocked-mail.com'), TEXT.blocked], // on the block list and off the allow list: the block list is asked first
      [unique('a', 'eu.corp-example.net'), TEXT.blocked],
      [unique('a', 'example.org'), TEXT.notAllowed],
      [unique('a+news', 'example.com'), TEXT.subaddress],
    ] as const;
    for (const [email, text] of refused) {
      const res = await signUp(email);
      expect([email, res.status]).toEqual([email, 403]);
      expect(res.body).toContain(text);
      expect(res.body).toMatch(/id="email"[^>]*aria-invalid="true"/);
      expect(messagesTo(t.app, email)).toEqual([]);
    }
    expect((await signUp(unique('a', 'hr.example.com'))).status).toBe(200);
    expect(await blockedReasons()).toEqual([
      ['sign_up', 'domain_blocked'],
      ['sign_up', 'domain_blocked'],
      ['sign_up', 'domain_not_allowed'],
      ['sign_up', 'subaddress'],
    ]);
    const audit = (await auditEntries(t, { tenantId: env.tenantId })).filter((a) => a.action === 'protection.block' && a.environmentId === env.environmentId);
    expect(audit.map((a) => a.changes?.after)).toContainEqual({ policy: 'restrictions', flow: 'sign_up', reason: 'subaddress' });
  });

  it('disposable domains (and their subdomains) are refused, localised; repeated tries add to one low-severity threat per IP', async () => {
    await restrict({ blockDisposableEmails: true });
    const first = await signUp(unique('x', 'mailinator.com'));
    expect(first.status).toBe(403);
    expect(first.body).toContain(TEXT.disposable);
    const german = await signUp(unique('x', 'inbox.mailinator.com'), { 'accept-language': 'de' });
    expect(german.status).toBe(403);
    expect(german.body).toContain(TEXT.disposableDe);
    expect((await signUp(unique('x', 'example.com'))).status).toBe(200);

    const events = await protectionEvents();
    expect(events.map((e) => e.type)).toEqual(['threat.created', 'protection.blocked', 'threat.updated', 'protection.blocked']);
    const blocked = events[1]!.data;
    expect(blocked).toMatchObject({ policy: 'restrictions', flow: 'sign_up', reason: 'disposable_domain', userId: null, ip: expect.any(String) });
    const threats = await t.app.inject({ method: 'GET', url: `${settings().replace('/settings', '')}/threats`, headers: bearer(token) });
    expect(threats.json().threats).toEqual([
      expect.objectContaining({ id: blocked.threatId, category: 'sign_in.restrictions', severity: 'low', occurrences: 2, subject: `ip:${blocked.ip}` }),
    ]);
  });

  it('sign-in: untouched without applyToSignins; with it, an email identifier or a user name’s email is refused before the password', async () => {
    const user = await directoryUser(t, env.environmentId, unique('old', 'mailinator.com'));
    await setPassword(t, token, env.tenantId, env.environmentId, user.id, PASSWORD);
    const byName = await directoryUser(t, env.environmentId, unique('named', 'mailinator.com'));
    await t.pool.query(sqlRename(byName.id));
    await setPassword(t, token, env.tenantId, env.environmentId, byName.id, PASSWORD);
    await restrict({ blockDisposableEmails: true });
    expect((await signIn(user.userName)).status).toBe(303);

    await restrict({ blockDisposableEmails: true, applyToSignins: true });
    const refused = await signIn(user.userName);
    expect(refused.status).toBe(403);
    expect(refused.body).toContain(TEXT.disposable);
    const named = await signIn(`grace-${byName.id.slice(0, 8)}`);
    expect(named.status).toBe(403);
    expect((await signIn(unique('nobody', 'example.com'))).status).toBe(401); // unknown: the usual wrong-credentials page
    const blocked = (await protectionEvents()).filter((e) => e.type === 'protection.blocked').map((e) => e.data);
    expect(blocked).toEqual([
      expect.objectContaining({ flow: 'sign_in', reason: 'disposable_domain', login: user.userName, userId: null }),
      expect.objectContaining({ flow: 'sign_in', reason: 'disposable_domain', login: `grace-${byName.id.slice(0, 8)}`, userId: byName.id }),
    ]);
    expect((await tenantEvents(t, env.tenantId, { environmentId: env.environmentId, type: 'user.signed_in' })).length).toBe(1);
  });
});

/** Gives a user a user name that is not an email (the test helper names users by their email). */
const sqlRename = (userId: string) => sql.unsafe`UPDATE users SET user_name = ${`grace-${userId.slice(0, 8)}`} WHERE id = ${userId}`;
