// The passkey management API (directory scope): a user's passkeys listed (never their keys), renamed and removed,
// with events; 404 for another user's passkey and across organizations. Passkeys are registered through the real
// ceremony with the software authenticator, and the full round trip ends in a refused sign-in.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPasskeyCeremonies, type PasskeyCeremonies, type PasskeyEnvironment } from '../../api/passkeys/index.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments, otherOrganization } from '../helpers/fixtures.ts';
import { SoftAuthenticator } from '../helpers/soft-authenticator.ts';
import { userPrincipal } from '../helpers/users.ts';

const ORIGIN = 'https://id.example.test';

let t: TestApp;
let token: string;
let tenantId: string;
let env: PasskeyEnvironment;
let users: string;
let passkeys: PasskeyCeremonies;
beforeAll(async () => {
  t = await startTestApp({ PUBLIC_BASE_URL: ORIGIN });
  token = await t.token();
  tenantId = t.credentials.tenantId;
  passkeys = createPasskeyCeremonies(t.pool, t.config.publicBaseUrl);
});
beforeEach(async () => {
  env = { environmentId: (await newEnvironments(t, token)).environmentIds[0]!, tenantId };
  users = `/v1/tenants/${tenantId}/environments/${env.environmentId}/directory/users`;
});
afterAll(() => t.close());

type Method = 'GET' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, payload?: object, auth = token) =>
  t.app.inject({ method, url, headers: bearer(auth), ...(payload ? { payload } : {}) });
const newUser = async (environment = env) => {
  const url = `/v1/tenants/${tenantId}/environments/${environment.environmentId}/directory/users`;
  const res = await t.app.inject({ method: 'POST', url, headers: bearer(token), payload: { userName: `user-${crypto.randomUUID().slice(0, 8)}` } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().user.id as string;
};
const register = async (userId: string, authenticator = new SoftAuthenticator({ origin: ORIGIN }), environment = env, name?: string) => {
  const { challengeId, options } = await passkeys.registrationOptions(environment, userId);
  const result = await passkeys.verifyRegistration(environment, userId, challengeId, authenticator.create(options), { name });
  if (!result.ok) throw new Error(`registration refused: ${result.reason}`);
  return result.passkey;
};
const eventsOf = async (type: string) => (await tenantEvents(t, tenantId, { environmentId: env.environmentId })).filter((e) => e.type === type);
const invalid = (path: string, message: string) => ({
  error: `Invalid request: ${path} ${message}.`,
  code: 'request.invalid',
  requestId: expect.any(String),
  details: [{ path, message }],
});

describe('passkey management', () => {
  it('registers, lists, signs in (with the user and discoverable), renames and removes a passkey; a removed one no longer signs in', async () => {
    const userId = await newUser();
    const authenticator = new SoftAuthenticator({ origin: ORIGIN, initialCounter: 1 });
    const passkey = await register(userId, authenticator);

    const listed = await call('GET', `${users}/${userId}/passkeys`);
    expect(listed.statusCode, listed.body).toBe(200);
    expect(listed.json()).toEqual({
      passkeys: [
        {
          id: passkey.id,
          userId,
          name: 'Passkey',
          deviceType: 'singleDevice',
          backedUp: false,
          transports: ['hybrid', 'internal'],
          aaguid: null,
          createdAt: passkey.createdAt,
          lastUsedAt: null,
        },
      ],
      total: 1,
      nextCursor: null,
      hasMore: false,
    });
    expect(listed.body).not.toMatch(/publicKey|credentialId|counter/);

    for (const who of [userId, null]) {
      const { challengeId, options } = await passkeys.authenticationOptions(env, who);
      expect(await passkeys.verifyAuthentication(env, challengeId, authenticator.get(options))).toMatchObject({ ok: true, userId, passkeyId: passkey.id });
    }
    const used = (await call('GET', `${users}/${userId}/passkeys`)).json().passkeys[0];
    expect(used.lastUsedAt).toEqual(expect.any(String));

    const renamed = await call('PATCH', `${users}/${userId}/passkeys/${passkey.id}`, { name: '  Work laptop  ' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json()).toEqual({ passkey: { ...used, name: 'Work laptop' } });
    const [renameEvent] = await eventsOf('user.passkey_renamed');
    expect(renameEvent).toMatchObject({
      actor: { type: 'service_account' },
      subject: { type: 'passkey', id: passkey.id },
      data: { userId, passkeyId: passkey.id, name: 'Work laptop', previousName: 'Passkey' },
    });

    const removed = await call('DELETE', `${users}/${userId}/passkeys/${passkey.id}`);
    expect(removed.statusCode, removed.body).toBe(200);
    expect(removed.json()).toEqual({ success: true, id: passkey.id });
    expect((await call('GET', `${users}/${userId}/passkeys`)).json()).toEqual({ passkeys: [], total: 0, nextCursor: null, hasMore: false });
    const [removeEvent] = await eventsOf('user.passkey_removed');
    expect(removeEvent).toMatchObject({ subject: { type: 'passkey', id: passkey.id }, data: { userId, passkeyId: passkey.id, name: 'Work laptop' } });
    const audit = await auditEntries(t, { tenantId }, { resourceId: passkey.id });
    expect(audit.map((a) => a.action)).toEqual(['user.passkey_added', 'user.passkey_renamed', 'user.passkey_removed']);
    expect(audit[1]!.changes).toEqual({ before: { name: 'Passkey' }, after: { name: 'Work laptop' } });

    const again = await call('DELETE', `${users}/${userId}/passkeys/${passkey.id}`);
    expect(again.statusCode).toBe(404);
    expect(again.json().code).toBe('passkey.not_found');
    const { challengeId, options } = await passkeys.authenticationOptions(env, null);
    expect(await passkeys.verifyAuthentication(env, challengeId, authenticator.get(options))).toEqual({ ok: false, reason: 'unknown_credential' });
  });

  it('pages the list oldest first with limit and the opaque cursor', async () => {
    const userId = await newUser();
    const made = [];
    for (const name of ['one', 'two', 'three']) made.push(await register(userId, undefined, env, name));
    const first = await call('GET', `${users}/${userId}/passkeys?limit=2`);
    expect(first.json()).toMatchObject({ total: 3, hasMore: true, nextCursor: expect.any(String) });
    expect(first.json().passkeys.map((p: { name: string }) => p.name)).toEqual(['one', 'two']);
    const second = await call('GET', `${users}/${userId}/passkeys?limit=2&cursor=${first.json().nextCursor}`);
    expect(second.json()).toMatchObject({ total: 3, hasMore: false, nextCursor: null, passkeys: [{ id: made[2]!.id, name: 'three' }] });
    const bad = await call('GET', `${users}/${userId}/passkeys?limit=500`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].path).toBe('querystring.limit');
  });

  it('refuses a name that is empty, longer than 100 characters, holds control characters or comes with unknown fields, and changes nothing', async () => {
    const userId = await newUser();
    const passkey = await register(userId);
    const url = `${users}/${userId}/passkeys/${passkey.id}`;
    const cases: [object, ReturnType<typeof invalid>][] = [
      [{ name: '   ' }, invalid('body.name', 'must not be empty')],
      [{ name: 'x'.repeat(101) }, invalid('body.name', 'must be at most 100 characters')],
      [{ name: 'evil\u202Ename' }, invalid('body.name', 'must not contain control or bidirectional formatting characters (found U+202E)')],
      [{ name: 'ok', counter: 0 }, expect.objectContaining({ code: 'request.invalid', details: [expect.objectContaining({ path: 'body.counter' })] })],
      [{}, invalid('body.name', 'Invalid input: expected string, received undefined')],
    ];
    for (const [body, error] of cases) {
      const res = await call('PATCH', url, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json()).toEqual(error);
    }
    const nul = await call('PATCH', url, { name: 'a\u0000b' });
    expect(nul.statusCode).toBe(400);
    expect(nul.json().details[0].path).toBe('body.name');
    expect((await call('GET', `${users}/${userId}/passkeys`)).json().passkeys[0].name).toBe('Passkey');
    expect(await eventsOf('user.passkey_renamed')).toEqual([]);
  });

  it("answers 404 for an unknown user, another user's passkey and another environment's, and across organizations", async () => {
    const alice = await newUser();
    const bob = await newUser();
    const alicesKey = await register(alice);
    const missingUser = await call('GET', `${users}/${crypto.randomUUID()}/passkeys`);
    expect(missingUser.statusCode).toBe(404);
    expect(missingUser.json().code).toBe('user.not_found');

    for (const [method, payload] of [
      ['PATCH', { name: 'mine now' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(method, `${users}/${bob}/passkeys/${alicesKey.id}`, payload);
      expect(res.statusCode, res.body).toBe(404);
      expect(res.json()).toEqual({ error: `No passkey with id ${alicesKey.id}.`, code: 'passkey.not_found', requestId: expect.any(String) });
    }

    const otherEnvironmentId = (await newEnvironments(t, token)).environmentIds[0]!;
    const elsewhere = `/v1/tenants/${tenantId}/environments/${otherEnvironmentId}/directory/users/${alice}/passkeys`;
    expect((await call('GET', elsewhere)).statusCode).toBe(404);
    expect((await call('DELETE', `${elsewhere}/${alicesKey.id}`)).statusCode).toBe(404);

    const theirs = (await otherOrganization(t)).token;
    for (const [method, url, payload] of [
      ['GET', `${users}/${alice}/passkeys`, undefined],
      ['PATCH', `${users}/${alice}/passkeys/${alicesKey.id}`, { name: 'x' }],
      ['DELETE', `${users}/${alice}/passkeys/${alicesKey.id}`, undefined],
    ] as const) {
      const res = await call(method, url, payload, theirs);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().code).toBe('tenant.not_found');
    }
    expect((await call('GET', `${users}/${alice}/passkeys`)).json()).toMatchObject({ total: 1, passkeys: [{ name: 'Passkey' }] });
  });

  it('needs directory:read to list and directory:write to change; an operator’s passkeys only for a caller that may manage it', async () => {
    const userId = await newUser();
    const passkey = await register(userId);
    const reader = await t.token('directory:read');
    expect((await call('GET', `${users}/${userId}/passkeys`, undefined, reader)).statusCode).toBe(200);
    const refused = await call('DELETE', `${users}/${userId}/passkeys/${passkey.id}`, undefined, reader);
    expect(refused.statusCode).toBe(403);

    const operator = await userPrincipal(t);
    const operatorEnv = { environmentId: t.credentials.environmentId, tenantId };
    const operatorKey = await register(operator.user.id, undefined, operatorEnv);
    const operatorUrl = `/v1/tenants/${tenantId}/environments/${t.credentials.environmentId}/directory/users/${operator.user.id}/passkeys/${operatorKey.id}`;
    const weak = await t.token('directory:write');
    for (const [method, payload] of [
      ['PATCH', { name: 'taken over' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(method, operatorUrl, payload, weak);
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().code).toBe('directory.user_protected');
    }
    expect((await call('DELETE', operatorUrl)).statusCode).toBe(200);
  });
});
