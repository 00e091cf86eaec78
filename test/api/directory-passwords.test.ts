// Directory passwords: set by an administrator, or by the user once through a one-time link the API issues.
import { createHash } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyPassword } from '../../lib/passwords.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { userPrincipal } from '../helpers/users.ts';

let t: TestApp;
let token: string;
let tenantId: string;
let environmentId: string;
let users: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  tenantId = t.credentials.tenantId;
});
beforeEach(async () => {
  environmentId = (await newEnvironments(t, token)).environmentIds[0]!;
  users = `/v1/tenants/${tenantId}/environments/${environmentId}/directory/users`;
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PUT';
const call = (method: Method, url: string, payload?: object, auth = token) =>
  t.app.inject({ method, url, headers: bearer(auth), ...(payload ? { payload } : {}) });
const newUser = async (userName = `user-${crypto.randomUUID().slice(0, 8)}`) => {
  const res = await call('POST', users, { userName, emails: [{ value: `${userName}@example.com` }] });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().user as { id: string; userName: string };
};
const storedHash = (userId: string) =>
  t.pool.maybeOneFirst(sql.type(z.object({ hash: z.string() }))`SELECT hash FROM user_passwords WHERE user_id = ${userId}`);
const eventsOf = async (type: string) => (await tenantEvents(t, tenantId, { environmentId })).filter((e) => e.type === type);
const invalid = (path: string, message: string) => ({
  error: `Invalid request: ${path} ${message}.`,
  code: 'request.invalid',
  requestId: expect.any(String),
  details: [{ path, message }],
});

/** The link's path on this app (the URL names PUBLIC_BASE_URL). */
const pathOf = (url: string) => new URL(url, 'http://localhost').pathname;
const page = (method: 'GET' | 'POST', url: string, form?: Record<string, string>) =>
  t.app.inject({
    method,
    url: pathOf(url),
    ...(form ? { payload: new URLSearchParams(form).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } } : {}),
  });

describe('PUT …/directory/users/:userId/password', () => {
  it('sets an argon2id hash, answers 204, and records user.password_set without the password', async () => {
    const user = await newUser();
    const res = await call('PUT', `${users}/${user.id}/password`, { password: 'correct horse battery' });
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');
    const hash = await storedHash(user.id);
    expect(hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword(hash, 'correct horse battery')).toBe(true);

    const [event] = await eventsOf('user.password_set');
    expect(event).toMatchObject({ subject: { type: 'user', id: user.id }, data: { userId: user.id, via: 'api' } });
    const audit = await auditEntries(t, { tenantId }, { action: 'user.password_set' });
    expect(audit.map((a) => a.resource)).toContainEqual({ type: 'user', id: user.id });
    expect(JSON.stringify([event, audit])).not.toContain('correct horse');

    // Replacing it keeps one hash, the new one.
    expect((await call('PUT', `${users}/${user.id}/password`, { password: 'another password' })).statusCode).toBe(204);
    expect(await verifyPassword(await storedHash(user.id), 'another password')).toBe(true);
  });

  it('refuses a short, a long or a whitespace-only password with a 400 naming body.password, and changes nothing', async () => {
    const user = await newUser();
    const cases: [string, string][] = [
      ['short', 'must be at least 8 characters long'],
      ['😀😀😀😀😀😀😀', 'must be at least 8 characters long'],
      ['x'.repeat(257), 'must be at most 256 characters long'],
      ['          ', 'must not be only whitespace'],
    ];
    for (const [password, message] of cases) {
      const res = await call('PUT', `${users}/${user.id}/password`, { password });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toEqual(invalid('body.password', message));
    }
    expect(await storedHash(user.id)).toBeNull();
    expect(await eventsOf('user.password_set')).toEqual([]);
  });

  it('answers 404 for a user of another environment and 403 for an operator without the scopes to manage it', async () => {
    const res = await call('PUT', `${users}/${crypto.randomUUID()}/password`, { password: 'correct horse battery' });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('user.not_found');

    const operator = await userPrincipal(t);
    const operatorUrl = `/v1/tenants/${tenantId}/environments/${t.credentials.environmentId}/directory/users/${operator.user.id}`;
    const weak = await t.token('directory:write');
    for (const [path, body] of [
      ['password', { password: 'correct horse battery' }],
      ['password-links', {}],
    ] as const) {
      const refused = await call(path === 'password' ? 'PUT' : 'POST', `${operatorUrl}/${path}`, body, weak);
      expect(refused.statusCode, refused.body).toBe(403);
      expect(refused.json().code).toBe('directory.user_protected');
    }
    expect(await storedHash(operator.user.id)).toBeNull();
  });
});

describe('password links', () => {
  const createLink = async (userId: string, body: object = {}) => {
    const res = await call('POST', `${users}/${userId}/password-links`, body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { url: string; expiresAt: string };
  };

  it('issues a link shown once (24 h by default, only its SHA-256 stored) that sets the password once', async () => {
    const user = await newUser();
    const before = Date.now();
    const link = await createLink(user.id);
    expect(link.url).toMatch(new RegExp(`^${t.config.publicBaseUrl}/v1/oidc/${environmentId}/password/[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(link.expiresAt) - before).toBeGreaterThan(24 * 3600_000 - 60_000);
    expect(Date.parse(link.expiresAt) - before).toBeLessThan(24 * 3600_000 + 60_000);
    const token = link.url.split('/').pop()!;
    const stored = await t.pool.any(
      sql.type(z.object({ hex: z.string() }))`SELECT encode(token_hash, 'hex') AS hex FROM password_links WHERE user_id = ${user.id}`,
    );
    expect(stored.map((s) => s.hex)).toEqual([createHash('sha256').update(token).digest('hex')]);
    const [created] = await eventsOf('user.password_link_created');
    expect(created?.data).toEqual({ userId: user.id, linkId: expect.any(String), expiresAt: link.expiresAt });
    expect(JSON.stringify(created)).not.toContain(token);

    const form = await page('GET', link.url);
    expect(form.statusCode).toBe(200);
    expect(form.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(form.headers['cache-control']).toBe('no-store');
    expect(form.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'nonce-[A-Za-z0-9+/=]+'; img-src 'none'/);
    expect(form.body).toContain(`Choose a password for <strong>${user.userName}</strong>`);

    const differ = await page('POST', link.url, { password: 'new password 1', confirmation: 'new password 2' });
    expect(differ.statusCode).toBe(400);
    expect(differ.body).toContain('The two passwords differ.');
    const short = await page('POST', link.url, { password: 'short', confirmation: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('The password must be at least 8 characters long.');
    expect(await storedHash(user.id)).toBeNull();

    const set = await page('POST', link.url, { password: 'new password 1', confirmation: 'new password 1' });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.body).toContain('Your password is set.');
    const hash = await storedHash(user.id);
    expect(await verifyPassword(hash, 'new password 1')).toBe(true);
    const [event] = await eventsOf('user.password_set');
    expect(event).toMatchObject({ actor: { type: 'user', id: user.id }, data: { userId: user.id, via: 'link' } });

    // Used: a second visit or submission shows it is gone and changes nothing.
    const again = await page('GET', link.url);
    expect(again.statusCode).toBe(410);
    expect(again.body).toContain('This link can no longer be used');
    const reuse = await page('POST', link.url, { password: 'hijacked password', confirmation: 'hijacked password' });
    expect(reuse.statusCode).toBe(410);
    expect(await storedHash(user.id)).toBe(hash);
    expect(await eventsOf('user.password_set')).toHaveLength(1);
  });

  it('refuses an expired link, a deactivated user’s link and an unknown link with a page, changing nothing', async () => {
    const user = await newUser();
    const expiring = await createLink(user.id, { expiresInSeconds: 60 });
    await t.pool.query(sql.unsafe`UPDATE password_links SET expires_at = now() - interval '1 second' WHERE user_id = ${user.id}`);
    const expired = await page('POST', expiring.url, { password: 'new password 1', confirmation: 'new password 1' });
    expect(expired.statusCode).toBe(410);

    const live = await createLink(user.id);
    expect((await call('POST', `${users}/${user.id}/deactivate`)).statusCode).toBe(200);
    expect((await page('GET', live.url)).statusCode).toBe(410);
    expect((await page('POST', live.url, { password: 'new password 1', confirmation: 'new password 1' })).statusCode).toBe(410);

    const unknown = await page('GET', live.url.replace(/[A-Za-z0-9_-]{43}$/, 'A'.repeat(43)));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.body).toContain('This link is not valid');
    expect((await page('GET', `/v1/oidc/not-an-id/password/${'A'.repeat(43)}`)).statusCode).toBe(404);
    expect(await storedHash(user.id)).toBeNull();
  });

  it('refuses expiresInSeconds above 7 days with a 400 naming body.expiresInSeconds', async () => {
    const user = await newUser();
    const res = await call('POST', `${users}/${user.id}/password-links`, { expiresInSeconds: 7 * 24 * 3600 + 1 });
    expect(res.statusCode).toBe(400);
    expect(res.json().details[0].path).toBe('body.expiresInSeconds');
    const week = await createLink(user.id, { expiresInSeconds: 7 * 24 * 3600 });
    expect(Date.parse(week.expiresAt)).toBeGreaterThan(Date.now() + 7 * 24 * 3600_000 - 60_000);
  });
});
