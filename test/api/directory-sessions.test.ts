// A directory user's sign-in sessions: listed with our shape, revoked one at a time or all together. A revocation
// deletes the provider's Session record and the codes and tokens of its grants (the grants stay), marks the session
// revoked and records `session.revoked` per session. Sessions and provider records are written with SQL, as the
// provider's adapter writes them.
import { sql } from 'slonik';
import { beforeEach, describe, expect, it } from 'vitest';
import { bearer, type TestApp } from '../helpers/app.ts';
import { environmentPerTest } from '../helpers/environment-per-test.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let token: string;
let tenantId: string;
let environmentId: string;
let base: string;
const env = environmentPerTest();
beforeEach(() => {
  ({ t, token, tenantId, environmentId } = env);
  base = env.base;
});

const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, payload?: object, auth = token) =>
  t.app.inject({ method, url: `${base}${path}`, headers: bearer(auth), ...(payload ? { payload } : {}) });

const user = async (userName: string): Promise<string> => (await call('POST', '/directory/users', { userName })).json().user.id;

async function payload(model: string, id: string, data: object, columns: { grantId?: string; uid?: string } = {}) {
  await t.pool.query(sql.unsafe`
    INSERT INTO oidc_payloads (environment_id, model, id, payload, grant_id, uid)
    VALUES (${environmentId}, ${model}, ${id}, ${sql.jsonb(data as never)}, ${columns.grantId ?? null}, ${columns.uid ?? null})`);
}

/** A provider session of the user signed in to `clients` (one grant each, with its tokens) and its directory row. */
async function session(userId: string, uid: string, clients: string[], minutesAgo = 0): Promise<string> {
  const authorizations = Object.fromEntries(clients.map((c) => [c, { sid: `sid-${uid}-${c}`, grantId: `grant-${uid}-${c}` }]));
  await payload('Session', `jti-${uid}`, { uid, accountId: userId, authorizations }, { uid });
  for (const c of clients) {
    const grantId = `grant-${uid}-${c}`;
    await payload('Grant', grantId, { accountId: userId, clientId: c });
    for (const model of ['AccessToken', 'RefreshToken', 'AuthorizationCode']) await payload(model, `${model}-${grantId}`, { grantId }, { grantId });
  }
  return t.pool.oneFirst(sql.unsafe`
    INSERT INTO directory_sessions (environment_id, user_id, session_uid, ip, user_agent, factors, client_ids, created_at, last_active_at, expires_at)
    VALUES (${environmentId}, ${userId}, ${uid}, '203.0.113.7', 'Mozilla/5.0', ${sql.array(['pwd'], 'text')}, ${sql.array(clients, 'text')},
      now() - make_interval(mins => ${minutesAgo}), now(), now() + interval '1 day')
    RETURNING id`) as Promise<string>;
}

const records = async () =>
  (await t.pool.anyFirst(sql.unsafe`SELECT model || ' ' || id FROM oidc_payloads WHERE environment_id = ${environmentId} ORDER BY model, id`)) as string[];

const TIME = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);

describe('directory sessions', () => {
  it("lists a user's sessions, newest first, with our shape", async () => {
    const ada = await user('ada');
    const older = await session(ada, 'u1', ['crm'], 10);
    const newer = await session(ada, 'u2', ['crm', 'wiki']);
    await session(await user('bob'), 'u3', ['crm']);
    const res = await call('GET', `/directory/users/${ada}/sessions`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      sessions: [
        {
          id: newer,
          userId: ada,
          clientIds: ['crm', 'wiki'],
          ip: '203.0.113.7',
          userAgent: 'Mozilla/5.0',
          factors: ['pwd'],
          createdAt: TIME,
          lastActiveAt: TIME,
          expiresAt: TIME,
          revokedAt: null,
          active: true,
        },
        expect.objectContaining({ id: older, clientIds: ['crm'], active: true }),
      ],
    });
    await t.pool.query(sql.unsafe`UPDATE directory_sessions SET expires_at = now() - interval '1 second' WHERE id = ${older}`);
    expect((await call('GET', `/directory/users/${ada}/sessions`)).json().sessions[1]).toMatchObject({ id: older, active: false, revokedAt: null });
    // Idle longer than the environment's idle lifetime (3 days by default): the provider no longer reuses it.
    const idle = await session(ada, 'u4', ['crm']);
    await t.pool.query(sql.unsafe`UPDATE directory_sessions SET last_active_at = now() - interval '3 days 1 minute' WHERE id = ${idle}`);
    expect((await call('GET', `/directory/users/${ada}/sessions`)).json().sessions[0]).toMatchObject({ id: idle, active: false });
    await call('PATCH', '/settings/session', { idleLifetimeSeconds: 4 * 86_400 });
    expect((await call('GET', `/directory/users/${ada}/sessions`)).json().sessions[0]).toMatchObject({ id: idle, active: true });
    const unknown = await call('GET', `/directory/users/${crypto.randomUUID()}/sessions`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('user.not_found');
  });

  it('revokes one session: its provider session and the tokens of its grants go, the grants and other sessions stay', async () => {
    const ada = await user('ada');
    const one = await session(ada, 'u1', ['crm', 'wiki']);
    await session(ada, 'u2', ['crm']);
    const res = await call('DELETE', `/directory/users/${ada}/sessions/${one}`);
    expect(res.statusCode).toBe(200);
    const revoked = res.json().sessions[0];
    expect(res.json()).toEqual({ success: true, sessions: [expect.objectContaining({ id: one, revokedAt: TIME, active: false })] });
    expect(await records()).toEqual([
      'AccessToken AccessToken-grant-u2-crm',
      'AuthorizationCode AuthorizationCode-grant-u2-crm',
      'Grant grant-u1-crm',
      'Grant grant-u1-wiki',
      'Grant grant-u2-crm',
      'RefreshToken RefreshToken-grant-u2-crm',
      'Session jti-u2',
    ]);
    expect((await call('GET', `/directory/users/${ada}/sessions`)).json().sessions.map((s: { active: boolean }) => s.active)).toEqual([true, false]);

    const events = await tenantEvents(t, tenantId, { type: 'session.revoked', environmentId });
    expect(events.map((e) => e.data)).toEqual([{ session: revoked }]);
    const audit = await auditEntries(t, { tenantId }, { resourceId: one });
    expect(audit.map((a) => [a.action, a.resource, a.changes])).toEqual([
      ['session.revoke', { type: 'session', id: one }, { before: { revokedAt: null }, after: { revokedAt: revoked.revokedAt } }],
    ]);

    // Revoked before: success, nothing revoked, nothing recorded.
    expect((await call('DELETE', `/directory/users/${ada}/sessions/${one}`)).json()).toEqual({ success: true, sessions: [] });
    expect(await tenantEvents(t, tenantId, { type: 'session.revoked', environmentId })).toHaveLength(1);
  });

  it("revokes all of a user's sessions, one event each, and leaves other users' alone", async () => {
    const ada = await user('ada');
    const bob = await user('bob');
    const ids = [await session(ada, 'u1', ['crm'], 5), await session(ada, 'u2', ['wiki'])];
    await session(bob, 'u3', ['crm']);
    const res = await call('DELETE', `/directory/users/${ada}/sessions`);
    expect(res.statusCode).toBe(200);
    expect(res.json().sessions.map((s: { id: string; active: boolean }) => [s.id, s.active])).toEqual(ids.map((id) => [id, false]));
    expect((await records()).filter((r) => !r.startsWith('Grant '))).toEqual([
      'AccessToken AccessToken-grant-u3-crm',
      'AuthorizationCode AuthorizationCode-grant-u3-crm',
      'RefreshToken RefreshToken-grant-u3-crm',
      'Session jti-u3',
    ]);
    const events = await tenantEvents(t, tenantId, { type: 'session.revoked', environmentId });
    expect(events.map((e) => (e.data.session as { id: string }).id).sort()).toEqual([...ids].sort());
    expect((await call('DELETE', `/directory/users/${ada}/sessions`)).json()).toEqual({ success: true, sessions: [] });
  });

  it('revokes a session whose provider record has already expired', async () => {
    const ada = await user('ada');
    const one = await session(ada, 'u1', ['crm']);
    await t.pool.query(sql.unsafe`DELETE FROM oidc_payloads WHERE environment_id = ${environmentId} AND model = 'Session'`);
    const res = await call('DELETE', `/directory/users/${ada}/sessions/${one}`);
    expect(res.json().sessions).toEqual([expect.objectContaining({ id: one, active: false })]);
  });

  it('answers 404 for a session of another user, an unknown session or user, and 400 for a malformed id', async () => {
    const ada = await user('ada');
    const bob = await user('bob');
    const bobs = await session(bob, 'u1', ['crm']);
    for (const [path, code] of [
      [`/directory/users/${ada}/sessions/${bobs}`, 'session.not_found'],
      [`/directory/users/${ada}/sessions/${crypto.randomUUID()}`, 'session.not_found'],
      [`/directory/users/${crypto.randomUUID()}/sessions/${bobs}`, 'user.not_found'],
      [`/directory/users/${crypto.randomUUID()}/sessions`, 'user.not_found'],
    ]) {
      const res = await call('DELETE', path!);
      expect(res.statusCode, path).toBe(404);
      expect(res.json().code).toBe(code);
    }
    const bad = await call('DELETE', `/directory/users/${ada}/sessions/nope`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details).toEqual([{ path: 'params.sessionId', message: expect.any(String) }]);
    expect(await records()).toContain('Session jti-u1');
  });

  it('needs directory scopes, and is 404 to another organization', async () => {
    const ada = await user('ada');
    const one = await session(ada, 'u1', ['crm']);
    const readOnly = await t.token('directory:read');
    expect((await call('GET', `/directory/users/${ada}/sessions`, undefined, readOnly)).statusCode).toBe(200);
    expect((await call('DELETE', `/directory/users/${ada}/sessions/${one}`, undefined, readOnly)).statusCode).toBe(403);
    const { token: theirs } = await otherOrganization(t);
    for (const path of [`/directory/users/${ada}/sessions`, `/directory/users/${ada}/sessions/${one}`]) {
      expect((await call('DELETE', path, undefined, theirs)).json().code).toBe('tenant.not_found');
    }
    expect(await records()).toContain('Session jti-u1');
  });
});
