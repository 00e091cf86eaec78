// Connected apps: the consents users gave clients (SPEC OidcClientGrant), listed per environment (paged, filtered)
// and per user, and revoked with every provider record of the grant, with event and audit. Grants and provider
// records are written with SQL, as the provider's consent and adapter write them.
import { sql } from 'slonik';
import { beforeEach, describe, expect, it } from 'vitest';
import { bearer, type TestApp } from '../helpers/app.ts';
import { environmentPerTest } from '../helpers/environment-per-test.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments, otherOrganization } from '../helpers/fixtures.ts';

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

const call = (method: 'GET' | 'POST', path: string, payload?: object, auth = token) =>
  t.app.inject({ method, url: `${base}${path}`, headers: bearer(auth), ...(payload ? { payload } : {}) });

async function user(userName: string, externalId?: string): Promise<string> {
  const res = await call('POST', '/directory/users', { userName, ...(externalId ? { externalId } : {}) });
  return res.json().user.id;
}

/** A client of the environment; client ids are unique across environments, so each test's get a suffix. */
async function client(name: string): Promise<string> {
  const clientId = `${name}-${environmentId.slice(0, 8)}`;
  await t.pool.query(sql.unsafe`
    INSERT INTO oidc_clients (environment_id, client_id, name, client_uri, logo_uri, token_endpoint_auth_method)
    VALUES (${environmentId}, ${clientId}, ${`App ${name}`}, ${`https://${name}.example.com`}, ${`https://${name}.example.com/logo.png`}, 'none')`);
  return clientId;
}

async function grant(clientId: string, userId: string, grantId: string) {
  await t.pool.query(sql.unsafe`
    INSERT INTO oidc_client_grants (environment_id, client_id, user_id, grant_id, scopes)
    VALUES (${environmentId}, ${clientId}, ${userId}, ${grantId}, ${sql.array(['openid', 'profile'], 'text')})`);
  for (const [model, id, grantColumn] of [
    // The adapter gives a Grant its own id as grant_id.
    ['Grant', grantId, grantId],
    ['AccessToken', `at-${grantId}`, grantId],
    ['RefreshToken', `rt-${grantId}`, grantId],
    ['AuthorizationCode', `code-${grantId}`, grantId],
  ] as const) {
    await t.pool.query(sql.unsafe`
      INSERT INTO oidc_payloads (environment_id, model, id, payload, grant_id, client_id, account_id)
      VALUES (${environmentId}, ${model}, ${id}, ${sql.jsonb({ jti: id, grantId })}, ${grantColumn}, ${clientId}, ${userId})`);
  }
}

const records = async () =>
  (await t.pool.anyFirst(sql.unsafe`SELECT model || ' ' || id FROM oidc_payloads WHERE environment_id = ${environmentId} ORDER BY model, id`)) as string[];

const TIME = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);

describe('connected apps', () => {
  it('lists grants with the SPEC shape, paged and filtered by client or user, and per user', async () => {
    const crm = await client('crm');
    const wiki = await client('wiki');
    const ada = await user('ada', 'emp-1');
    const bob = await user('bob');
    await grant(crm, ada, 'g1');
    await grant(wiki, ada, 'g2');
    await grant(crm, bob, 'g3');

    const all = await call('GET', '/connected-apps');
    expect(all.statusCode).toBe(200);
    const [first] = all.json().grants;
    expect(first).toEqual({
      id: expect.any(String),
      environmentId,
      clientId: crm,
      userId: ada,
      userExternalId: 'emp-1',
      clientName: 'App crm',
      clientUri: 'https://crm.example.com',
      logoUri: 'https://crm.example.com/logo.png',
      scopes: ['openid', 'profile'],
      consentedAt: TIME,
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
      revoked: false,
      createdAt: TIME,
      updatedAt: TIME,
    });
    expect(all.json()).toMatchObject({ total: 3, hasMore: false, nextCursor: null });

    const page = (await call('GET', '/connected-apps?limit=2')).json();
    expect(page).toMatchObject({ total: 3, hasMore: true });
    expect((await call('GET', `/connected-apps?limit=2&cursor=${page.nextCursor}`)).json().grants.map((g: { userId: string }) => g.userId)).toEqual([bob]);

    const pairs = (body: { grants: { clientName: string; userExternalId: string }[] }) => body.grants.map((g) => `${g.clientName}:${g.userExternalId}`);
    expect(pairs((await call('GET', `/connected-apps?clientId=${crm}`)).json())).toEqual(['App crm:emp-1', `App crm:${bob}`]);
    expect(pairs((await call('GET', `/connected-apps?userId=${ada}`)).json())).toEqual(['App crm:emp-1', 'App wiki:emp-1']);
    expect(pairs((await call('GET', `/directory/users/${ada}/connected-apps`)).json())).toEqual(['App crm:emp-1', 'App wiki:emp-1']);
    expect((await call('GET', `/directory/users/${bob}/connected-apps?limit=1`)).json()).toMatchObject({ total: 1, hasMore: false });

    const unknown = await call('GET', `/directory/users/${crypto.randomUUID()}/connected-apps`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('user.not_found');
    const bad = await call('GET', '/connected-apps?userId=nope');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details).toEqual([{ path: 'querystring.userId', message: expect.any(String) }]);
  });

  it("revokes a grant: its provider records go at once, others' stay, with event and audit", async () => {
    const crm = await client('crm');
    const ada = await user('ada');
    const bob = await user('bob');
    await grant(crm, ada, 'g1');
    await grant(crm, bob, 'g2');

    const res = await call('POST', '/connected-apps/revoke', { clientId: crm, userId: ada });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true });
    expect(await records()).toEqual(['AccessToken at-g2', 'AuthorizationCode code-g2', 'Grant g2', 'RefreshToken rt-g2']);

    const revoked = (await call('GET', `/connected-apps?userId=${ada}`)).json().grants[0];
    expect(revoked).toMatchObject({ clientId: crm, userId: ada, revoked: true, revokedAt: TIME });
    const events = await tenantEvents(t, tenantId, { type: 'connected_app.revoked', environmentId });
    expect(events.map((e) => e.data)).toEqual([{ grant: revoked }]);
    const audit = await auditEntries(t, { tenantId }, { resourceId: revoked.id });
    expect(audit.map((a) => [a.action, a.resource, a.changes])).toEqual([
      ['connected_app.revoke', { type: 'oidc_client_grant', id: revoked.id }, { before: { revokedAt: null }, after: { revokedAt: revoked.revokedAt } }],
    ]);

    // A second revocation answers success and records nothing more.
    expect((await call('POST', '/connected-apps/revoke', { clientId: crm, userId: ada })).json()).toEqual({ success: true });
    expect(await tenantEvents(t, tenantId, { type: 'connected_app.revoked', environmentId })).toHaveLength(1);
  });

  it.each([
    [{ clientId: 'crm' }, 'body.userId'],
    [{ userId: '00000000-0000-4000-8000-000000000000' }, 'body.clientId'],
    [{ clientId: '', userId: '00000000-0000-4000-8000-000000000000' }, 'body.clientId'],
    [{ clientId: 'crm', userId: 'nope' }, 'body.userId'],
    [{ clientId: 'crm', userId: '00000000-0000-4000-8000-000000000000', other: 1 }, 'body.other'],
  ])('refuses the revocation %o naming %s', async (payload, path) => {
    const res = await call('POST', '/connected-apps/revoke', payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual(expect.arrayContaining([{ path, message: expect.any(String) }]));
  });

  it('answers 404 when the user never consented to the client', async () => {
    const crm = await client('crm');
    const ada = await user('ada');
    const res = await call('POST', '/connected-apps/revoke', { clientId: crm, userId: ada });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'connected_app.not_found', error: `User ${ada} has no grant for client ${crm} in this environment.` });
  });

  it('keeps environments apart and needs connected-apps scopes', async () => {
    const crm = await client('crm');
    const ada = await user('ada');
    await grant(crm, ada, 'g1');
    const [, other] = (await newEnvironments(t, token)).environmentIds;
    const otherBase = `/v1/tenants/${tenantId}/environments/${other}`;
    const list = await t.app.inject({ method: 'GET', url: `${otherBase}/connected-apps`, headers: bearer(token) });
    expect(list.json()).toMatchObject({ grants: [], total: 0 });
    const revoke = await t.app.inject({
      method: 'POST',
      url: `${otherBase}/connected-apps/revoke`,
      headers: bearer(token),
      payload: { clientId: crm, userId: ada },
    });
    expect(revoke.statusCode).toBe(404);
    expect(await records()).toHaveLength(4);

    const readOnly = await t.token('connected-apps:read');
    expect((await call('GET', '/connected-apps', undefined, readOnly)).statusCode).toBe(200);
    expect((await call('POST', '/connected-apps/revoke', { clientId: crm, userId: ada }, readOnly)).statusCode).toBe(403);
    const { token: theirs } = await otherOrganization(t);
    expect((await call('GET', '/connected-apps', undefined, theirs)).json().code).toBe('tenant.not_found');
    expect((await call('POST', '/connected-apps/revoke', { clientId: crm, userId: ada }, theirs)).json().code).toBe('tenant.not_found');
  });
});
