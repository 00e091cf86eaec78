// The environment API secret selects the model: environments never see each other's. Authentication failures are
// 401 with WWW-Authenticate, and a PEP's X-Request-ID comes back whatever it looks like, errors included.
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiSecret } from '../helpers/access-model.ts';
import { authzenEnvironment, type Pdp } from '../helpers/authzen.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import type { ModelSeed } from '../helpers/access-model.ts';

let t: TestApp;
let a: Pdp;
let b: Pdp;

// The same subject and resource ids in both environments; only A grants read.
const seed = (grant: boolean): ModelSeed => ({
  users: [{ userName: 'dana' }],
  resourceTypes: [{ key: 'report', actions: ['read'] }],
  resources: [{ type: 'report', id: 'r1' }],
  roles: [{ key: 'reader', permissions: [{ type: 'report', action: 'read' }] }],
  assignments: grant ? [{ role: 'reader', user: 'dana' }] : [],
});
const question = { subject: { type: 'user', id: 'dana' }, action: { name: 'read' }, resource: { type: 'report', id: 'r1' } };

beforeAll(async () => {
  t = await startTestApp();
  const { tenantId, environmentIds } = await newEnvironments(t);
  a = await authzenEnvironment(t, seed(true), { tenantId, environmentId: environmentIds[0]! });
  b = await authzenEnvironment(t, seed(false), { tenantId, environmentId: environmentIds[1]! });
});
afterAll(() => t?.close());

const call = (headers: Record<string, string>, payload: unknown = question) =>
  t.app.inject({ method: 'POST', url: '/access/v1/evaluation', headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(payload) });

describe('AuthZEN environment secrets', () => {
  it("answers from the secret's environment only", async () => {
    expect((await a.post('evaluation', question)).body).toEqual({ decision: true });
    expect((await b.post('evaluation', question)).body).toEqual({ decision: false });
    expect((await b.post('search/resource', { ...question, resource: { type: 'report' } })).body).toMatchObject({ results: [] });
    expect((await a.post('search/resource', { ...question, resource: { type: 'report' } })).body).toMatchObject({ results: [{ type: 'report', id: 'r1' }] });
  });

  it('sees a model change on the next decision', async () => {
    await t.pool.query(sql.unsafe`DELETE FROM rbac_assignments WHERE environment_id = ${a.environmentId}`);
    await expect.poll(async () => (await a.post('evaluation', question)).body).toEqual({ decision: false });
    await t.pool.query(sql.unsafe`
      INSERT INTO rbac_assignments (environment_id, role_id, user_id) VALUES (${a.environmentId}, ${a.ids.roles.reader!}, ${a.ids.users.dana!})`);
    await expect.poll(async () => (await a.post('evaluation', question)).body).toEqual({ decision: true });
  });

  it.each([
    ['no Authorization header', {}, 'auth.missing_secret'],
    ['an unknown secret', { authorization: 'Bearer adenv_0000000000000000000000000000000000000000' }, 'auth.invalid_secret'],
    ['a management token', { authorization: 'Bearer not-a-secret.x' }, 'auth.malformed_token'],
  ])('401 with WWW-Authenticate for %s', async (_what, headers, code) => {
    const res = await call(headers);
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="iam"/);
    expect(res.json()).toMatchObject({ code, error: expect.any(String), requestId: expect.any(String) });
  });

  it('403 for a secret without the authzen purpose', async () => {
    const { secret } = await createApiSecret(t.pool, a.environmentId, ['mcp']);
    const res = await call({ authorization: `Bearer ${secret}` });
    expect(res).toMatchObject({ statusCode: 403 });
    expect(res.json()).toMatchObject({ code: 'auth.secret_purpose' });
  });
});

describe('X-Request-ID', () => {
  it.each(['simple-id', crypto.randomUUID(), 'a value with spaces / and = signs', 'x'.repeat(300)])('echoes %s', async (id) => {
    const ok = await call({ authorization: `Bearer ${a.secret}`, 'x-request-id': id });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['x-request-id']).toBe(id);
    const invalid = await call({ authorization: `Bearer ${a.secret}`, 'x-request-id': id }, { subject: 'x' });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.headers['x-request-id']).toBe(id);
    const unauthenticated = await call({ 'x-request-id': id });
    expect(unauthenticated.statusCode).toBe(401);
    expect(unauthenticated.headers['x-request-id']).toBe(id);
    const notJson = await t.app.inject({
      method: 'POST',
      url: '/access/v1/search/action',
      headers: { 'content-type': 'text/plain', 'x-request-id': id },
      payload: 'hi',
    });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.headers['x-request-id']).toBe(id);
  });

  it('gives a request id when the PEP sends none', async () => {
    const res = await call({ authorization: `Bearer ${a.secret}` });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
