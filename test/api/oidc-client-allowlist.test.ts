// The client allowlist of an environment: replaced, added to and removed from, only with clients of the environment;
// each change audited with `oidc_client_allowlist.updated` (the whole list after it); concurrent edits serialize;
// other organizations see none of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments, otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let token: string;
let tenantId: string;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  tenantId = t.credentials.tenantId;
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const api = (method: Method, url: string, payload?: object, auth = token) =>
  t.app.inject({ method, url, headers: bearer(auth), ...(payload ? { payload } : {}) });

/** A fresh environment with `n` clients: its base path, the allowlist path and the clients. */
async function environment(n = 3) {
  const { environmentIds } = await newEnvironments(t);
  const environmentId = environmentIds[0]!;
  const base = `/v1/tenants/${tenantId}/environments/${environmentId}/oidc`;
  const clients: { clientId: string; name: string }[] = [];
  for (let i = 0; i < n; i++) {
    const res = await api('POST', `${base}/clients`, { clientName: `App ${i}`, redirectUris: ['https://app.example.com/cb'] });
    clients.push(res.json().client);
  }
  return { environmentId, url: `${base}/client-allowlist`, clients };
}

const entry = (c: { clientId: string; name: string }) => ({ id: expect.any(String), clientId: c.clientId, clientName: c.name, createdAt: expect.any(String) });

describe('the client allowlist', () => {
  it('is empty at first, then replaced, added to and removed from', async () => {
    const { url, clients } = await environment();
    const [a, b, c] = clients as [(typeof clients)[0], (typeof clients)[0], (typeof clients)[0]];
    expect((await api('GET', url)).json()).toEqual({ entries: [] });

    const put = await api('PUT', url, { clientIds: [a.clientId, b.clientId, a.clientId] });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toEqual({ entries: [entry(a), entry(b)] });
    const kept = put.json().entries[0];

    const added = await api('POST', url, { clientId: c.clientId });
    expect(added.statusCode).toBe(200);
    expect(added.json()).toEqual({ entries: [kept, entry(b), entry(c)] });
    expect((await api('POST', url, { clientId: c.clientId })).json()).toEqual(added.json());

    const replaced = await api('PUT', url, { clientIds: [c.clientId, a.clientId] });
    expect(replaced.json().entries.map((e: { clientId: string }) => e.clientId)).toEqual([a.clientId, c.clientId]);
    expect(replaced.json().entries[0]).toEqual(kept);

    const removed = await api('DELETE', `${url}/${a.clientId}`);
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toEqual({ entries: [entry(c)] });
    const again = await api('DELETE', `${url}/${a.clientId}`);
    expect(again.statusCode).toBe(404);
    expect(again.json().code).toBe('oidc_client_allowlist_entry.not_found');
    expect((await api('PUT', url, { clientIds: [] })).json()).toEqual({ entries: [] });
  });

  it('accepts only clients of the environment, naming the one it refuses', async () => {
    const { url, clients } = await environment(1);
    const other = await environment(1);
    const put = await api('PUT', url, { clientIds: [clients[0]!.clientId, other.clients[0]!.clientId] });
    expect(put.statusCode).toBe(400);
    expect(put.json()).toMatchObject({ code: 'oidc_client.not_found', error: expect.stringContaining('body.clientIds.1') });
    expect(put.json().details).toEqual([{ path: 'body.clientIds.1', message: `${other.clients[0]!.clientId} is not an OIDC client of this environment` }]);
    const post = await api('POST', url, { clientId: 'oc_nope' });
    expect(post.statusCode).toBe(400);
    expect(post.json().details).toEqual([{ path: 'body.clientId', message: 'oc_nope is not an OIDC client of this environment' }]);
    expect((await api('PUT', url, { clientIds: 'x' })).json().details[0].path).toBe('body.clientIds');
    expect((await api('GET', url)).json()).toEqual({ entries: [] });
  });

  it('keeps the entry of a deleted client, without its name, until it is removed', async () => {
    const { environmentId, url, clients } = await environment(2);
    await api('PUT', url, { clientIds: [clients[0]!.clientId] });
    await api('DELETE', `/v1/tenants/${tenantId}/environments/${environmentId}/oidc/clients/${clients[0]!.clientId}`);
    expect((await api('GET', url)).json()).toEqual({ entries: [{ ...entry(clients[0]!), clientName: null }] });
    expect((await api('DELETE', `${url}/${clients[0]!.clientId}`)).json()).toEqual({ entries: [] });
  });

  it('records each change (the whole list after it) and nothing for a change that changes nothing', async () => {
    const { environmentId, url, clients } = await environment(2);
    const [a, b] = clients.map((c) => c.clientId) as [string, string];
    await api('PUT', url, { clientIds: [a] });
    await api('PUT', url, { clientIds: [a] });
    await api('POST', url, { clientId: b });
    await api('POST', url, { clientId: b });
    await api('DELETE', `${url}/${a}`);
    const events = await tenantEvents(t, tenantId, { type: 'oidc_client_allowlist.updated', environmentId });
    expect(events.map((e) => e.data)).toEqual([
      { environmentId, clientIds: [a] },
      { environmentId, clientIds: [a, b] },
      { environmentId, clientIds: [b] },
    ]);
    const audits = await auditEntries(t, { tenantId }, { action: 'oidc_client_allowlist.update', resourceId: environmentId });
    expect(audits.map((e) => e.changes)).toEqual([
      { before: { clientIds: [] }, after: { clientIds: [a] } },
      { before: { clientIds: [a] }, after: { clientIds: [a, b] } },
      { before: { clientIds: [a, b] }, after: { clientIds: [b] } },
    ]);
  });

  it('serializes concurrent edits: adds of the same client list it once, with one event', async () => {
    const { environmentId, url, clients } = await environment(1);
    const answers = await Promise.all(Array.from({ length: 4 }, () => api('POST', url, { clientId: clients[0]!.clientId })));
    expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200]);
    expect((await api('GET', url)).json().entries).toHaveLength(1);
    expect(await tenantEvents(t, tenantId, { type: 'oidc_client_allowlist.updated', environmentId })).toHaveLength(1);
  });

  it("needs environment-settings scopes and hides other organizations' allowlists", async () => {
    const { url, clients } = await environment(1);
    expect((await api('PUT', url, { clientIds: [] }, await t.token('environment-settings:read'))).statusCode).toBe(403);
    expect((await api('GET', url, undefined, await t.token('oidc-clients:read'))).statusCode).toBe(403);
    expect((await api('GET', url, undefined, await t.token('environment-settings:read'))).statusCode).toBe(200);
    const other = (await otherOrganization(t)).token;
    for (const [method, path, body] of [
      ['GET', url],
      ['PUT', url, { clientIds: [] }],
      ['POST', url, { clientId: clients[0]!.clientId }],
      ['DELETE', `${url}/${clients[0]!.clientId}`],
    ] as const) {
      const res = await api(method, path, body, other);
      expect(res.statusCode, `${method} ${path}`).toBe(404);
      expect(res.json().code).toBe('tenant.not_found');
    }
  });
});
