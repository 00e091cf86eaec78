// Widget tokens and the widget API: issuance (shape, 400s naming the field, JWKS verification, the event without the
// token), the widget API's credential rules (only widget tokens, of the route's kind, within their scopes, from their
// origins, unexpired, unrevoked), CORS, and a widget token refused by every other kind of route with 403.
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { sql } from 'slonik';
import { beforeEach, describe, expect, it } from 'vitest';
import { signWidgetToken } from '../../api/families/widgets/widgets/token.ts';
import { bearer, type TestApp } from '../helpers/app.ts';
import { environmentPerTest } from '../helpers/environment-per-test.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';

const ORIGIN = 'https://app.example.com';
let t: TestApp;
let token: string;
let tenantId: string;
let environmentId: string;
let base: string;
const env = environmentPerTest();
beforeEach(() => ({ t, token, tenantId, environmentId, base } = env));

const manage = (method: 'GET' | 'POST', path: string, payload?: object, auth = token) =>
  t.app.inject({ method, url: `${base}${path}`, headers: bearer(auth), ...(payload ? { payload } : {}) });
const widget = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, auth: string, options: { payload?: object; origin?: string } = {}) =>
  t.app.inject({
    method,
    url: `/v1/widgets${path}`,
    headers: { ...bearer(auth), ...(options.origin ? { origin: options.origin } : {}) },
    ...(options.payload ? { payload: options.payload } : {}),
  });

const newUser = async (userName = `u-${crypto.randomUUID().slice(0, 8)}`) => (await manage('POST', '/directory/users', { userName })).json().user.id as string;
async function issue(body: object) {
  const res = await manage('POST', '/widgets/tokens', { origins: [ORIGIN], ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { token: string; widgetToken: { id: string; scopes: string[] }; expiresIn: number };
}

async function session(userId: string, uid: string): Promise<string> {
  return t.pool.oneFirst(sql.unsafe`
    INSERT INTO directory_sessions (environment_id, user_id, session_uid, ip, user_agent, factors, client_ids, created_at, last_active_at, expires_at)
    VALUES (${environmentId}, ${userId}, ${uid}, '203.0.113.7', 'Mozilla/5.0', ${sql.array(['pwd'], 'text')}, ${sql.array([], 'text')},
      now(), now(), now() + interval '1 day')
    RETURNING id`) as Promise<string>;
}

describe('widget tokens', () => {
  it('issues a token shown once, verifiable against the environment JWKS, evented and audited without the token', async () => {
    const userId = await newUser();
    const issued = await issue({ kind: 'user_security', userId, scopes: ['sessions:read'], lifetimeMinutes: 10 });
    expect(issued).toMatchObject({
      tokenType: 'Bearer',
      expiresIn: 600,
      widgetToken: {
        environmentId,
        userId,
        organizationId: null,
        kind: 'user_security',
        scopes: ['sessions:read'],
        origins: [ORIGIN],
        status: 'active',
        revokedAt: null,
      },
    });
    const issuer = `${t.config.publicBaseUrl}/v1/oidc/${environmentId}`;
    const jwks = (await t.app.inject({ method: 'GET', url: `/v1/oidc/${environmentId}/jwks` })).json();
    const { payload } = await jwtVerify(issued.token, createLocalJWKSet(jwks), { issuer, audience: `${issuer}/widgets`, typ: 'widget+jwt' });
    expect(payload).toMatchObject({ sub: userId, jti: issued.widgetToken.id, widget_kind: 'user_security', scope: 'sessions:read', origins: [ORIGIN] });
    expect(payload.exp! - payload.iat!).toBe(600);
    expect(decodeProtectedHeader(issued.token).alg).toBe('ES256');

    const [event] = await tenantEvents(t, tenantId, { type: 'widget.token.issued', environmentId });
    expect(event?.data).toEqual({ token: issued.widgetToken });
    expect(JSON.stringify(event)).not.toContain(issued.token);
    const [entry] = await auditEntries(t, { tenantId }, { action: 'widget.token.issue', resourceId: issued.widgetToken.id });
    expect(entry?.resource).toEqual({ type: 'widget_token', id: issued.widgetToken.id });
    expect((await manage('GET', `/widgets/tokens/${issued.widgetToken.id}`)).json().widgetToken).toEqual(issued.widgetToken);
    expect((await manage('GET', `/widgets/tokens?userId=${userId}`)).json()).toMatchObject({ widgetTokens: [issued.widgetToken], total: 1, hasMore: false });
  });

  it('answers 400 naming the field', async () => {
    const userId = await newUser();
    const cases: [object, string][] = [
      [{ kind: 'user_profile', userId, origins: ['https://app.example.com/path'] }, 'body.origins.0'],
      [{ kind: 'user_profile', userId, origins: [] }, 'body.origins'],
      [{ kind: 'user_profile', userId, scopes: ['sessions:read'] }, 'body.scopes.0'],
      [{ kind: 'user_profile', userId: crypto.randomUUID() }, 'body.userId'],
      [{ kind: 'user_profile', userId, lifetimeMinutes: 61 }, 'body.lifetimeMinutes'],
      [{ kind: 'user_profile', userId, organizationId: t.credentials.organizationId }, 'body.organizationId'],
      [{ kind: 'organization_members', userId }, 'body.organizationId'],
      [{ kind: 'audit_log', userId, organizationId: crypto.randomUUID() }, 'body.organizationId'],
      [{ kind: 'bank_account', userId }, 'body.kind'],
      [{ kind: 'user_profile', userId, colour: 'red' }, 'body.colour'],
    ];
    for (const [body, path] of cases) {
      const res = await manage('POST', '/widgets/tokens', { origins: [ORIGIN], ...body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(
        res.json().details.map((d: { path: string }) => d.path),
        JSON.stringify(body),
      ).toContain(path);
    }
  });

  it('is 404 in an environment of another organization', async () => {
    const { token: theirs } = await otherOrganization(t);
    const res = await manage('POST', '/widgets/tokens', { kind: 'user_profile', userId: await newUser(), origins: [ORIGIN] }, theirs);
    expect(res.statusCode).toBe(404);
  });
});

describe('the widget API', () => {
  it('acts within the kind and scopes only, and refuses other credentials', async () => {
    const userId = await newUser();
    const sessionId = await session(userId, 'uid-1');
    const { token: readOnly } = await issue({ kind: 'user_security', userId, scopes: ['sessions:read'] });
    const sessions = await widget('GET', '/sessions', readOnly);
    expect(sessions.statusCode, sessions.body).toBe(200);
    expect(sessions.json().sessions.map((s: { id: string }) => s.id)).toEqual([sessionId]);
    expect((await widget('DELETE', `/sessions/${sessionId}`, readOnly)).json()).toMatchObject({ code: 'widgets.insufficient_scope' });
    expect((await widget('GET', '/profile', readOnly)).json()).toMatchObject({ code: 'widgets.wrong_kind' });
    expect((await widget('GET', '/passkeys', readOnly)).statusCode).toBe(403);

    const { token: writer } = await issue({ kind: 'user_security', userId });
    const revoked = await widget('DELETE', `/sessions/${sessionId}`, writer);
    expect(revoked.statusCode, revoked.body).toBe(200);
    const listed = (await manage('GET', `/directory/users/${userId}/sessions`)).json();
    expect(listed.sessions[0]).toMatchObject({ id: sessionId, active: false });
    const [event] = await tenantEvents(t, tenantId, { type: 'session.revoked', environmentId });
    expect(event?.actor).toEqual({ type: 'user', id: userId });

    expect((await widget('GET', '/sessions', token)).json()).toMatchObject({ code: 'widgets.widget_token_required' });
    expect((await widget('GET', '/sessions', 'adpat_notarealtoken')).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: '/v1/widgets/sessions' })).statusCode).toBe(401);
  });

  it('is refused with 403 by every other route', async () => {
    const { token: w } = await issue({ kind: 'user_profile', userId: await newUser() });
    const management = await manage('GET', '/directory/users', undefined, w);
    expect(management.statusCode).toBe(403);
    expect(management.json().code).toBe('auth.widget_token');
    const authzen = await t.app.inject({ method: 'POST', url: '/access/v1/evaluation', headers: bearer(w), payload: {} });
    expect(authzen.json()).toMatchObject({ code: 'auth.widget_token' });
    expect((await t.app.inject({ method: 'GET', url: '/v1/userinfo', headers: bearer(w) })).statusCode).toBe(403);
  });

  it('answers CORS for the token origins only', async () => {
    const { token: w } = await issue({ kind: 'user_profile', userId: await newUser() });
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: '/v1/widgets/profile',
      headers: { origin: ORIGIN, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': ORIGIN,
      'access-control-allow-methods': 'GET, PATCH',
      'access-control-allow-headers': 'authorization, content-type',
    });
    const allowed = await widget('PATCH', '/profile', w, { origin: ORIGIN, payload: { displayName: 'Ada L.' } });
    expect(allowed.statusCode, allowed.body).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(allowed.headers['cross-origin-resource-policy']).toBe('cross-origin');
    expect(allowed.json().user.displayName).toBe('Ada L.');
    const foreign = await widget('PATCH', '/profile', w, { origin: 'https://evil.example', payload: { displayName: 'Mallory' } });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().code).toBe('widgets.origin_not_allowed');
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    expect((await widget('GET', '/profile', w)).json().user.displayName).toBe('Ada L.');
    const bad = await widget('PATCH', '/profile', w, { payload: { userName: 'root' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details[0].path).toBe('body.userName');
  });

  it('refuses an expired or revoked token with 401', async () => {
    const userId = await newUser();
    const issued = await issue({ kind: 'user_profile', userId });
    const expired = await signWidgetToken(
      { db: t.pool, masterKey: t.masterKey, publicBaseUrl: t.config.publicBaseUrl },
      {
        tokenId: issued.widgetToken.id,
        userId,
        kind: 'user_profile',
        scopes: ['profile:read'],
        origins: [ORIGIN],
        environmentId,
        tenantId,
        organizationId: null,
        issuedAt: Date.now() - 120_000,
        expiresAt: Date.now() - 60_000,
      },
    );
    const res = await widget('GET', '/profile', expired);
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toContain('expired');
    expect((await widget('GET', '/profile', issued.token)).statusCode).toBe(200);
    expect((await manage('POST', `/widgets/tokens/${issued.widgetToken.id}/revoke`)).json().widgetToken).toMatchObject({ status: 'revoked' });
    expect((await widget('GET', '/profile', issued.token)).statusCode).toBe(401);
    const [event] = await tenantEvents(t, tenantId, { type: 'widget.token.revoked', environmentId });
    expect(event?.data).toMatchObject({ token: { id: issued.widgetToken.id, status: 'revoked' } });
  });

  it('invites a member, creates an API key and reads the audit log of the organization', async () => {
    const organizationId = t.credentials.organizationId;
    const userId = await newUser();
    const { token: members } = await issue({ kind: 'organization_members', userId, organizationId });
    const email = `invitee-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const invited = await widget('POST', '/invitations', members, { payload: { email, role: 'admin' } });
    expect(invited.statusCode, invited.body).toBe(201);
    expect(invited.json().invitation).toMatchObject({ email, role: 'admin', status: 'pending', token: null, invitationCode: null });
    const listed = await t.app.inject({ method: 'GET', url: `/v1/organizations/${organizationId}/invitations`, headers: bearer(token) });
    expect(listed.json().invitations.map((i: { email: string }) => i.email)).toContain(email);
    expect((await widget('GET', '/members', members)).statusCode).toBe(200);

    const { token: keys } = await issue({ kind: 'api_keys', userId });
    const created = await widget('POST', '/api-keys', keys, { payload: { name: 'CI' } });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ token: { name: 'CI', scopes: [], userId }, fullToken: expect.stringMatching(/^adpat_/) });

    const { token: audit } = await issue({ kind: 'audit_log', userId, organizationId });
    const page = (await widget('GET', `/audit-logs?action=organization.invitation.create&actorId=${userId}`, audit)).json();
    expect(page.auditLogs[0]).toMatchObject({ actor: { type: 'user', id: userId }, action: 'organization.invitation.create' });
  });
});
