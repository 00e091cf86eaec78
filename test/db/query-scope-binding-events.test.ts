// Queries bound to a scope (issue 16), access, MCP and events families: a query factory bound to one environment or tenant never reads, changes or
// deletes a row of another, even when it is handed that row's id. The services check scope first; this is the second
// line, and what the static check (test/lint/query-scope.test.ts) holds every statement to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiSecretQueries } from '../../db/access/api-secrets/queries.ts';
import { createWebhookEndpointQueries } from '../../db/events/webhooks/queries.ts';
import { createTrustStoreEntryQueries } from '../../db/mcp/trust-store/entries.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { newEnvironments } from '../helpers/fixtures.ts';

let t: TestApp;
let token: string;
let tenantId: string;
let mine: string;
let other: string;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  const made = await newEnvironments(t, token);
  tenantId = made.tenantId;
  [mine, other] = made.environmentIds as [string, string];
});
afterAll(() => t.close());

const api = (method: 'GET' | 'POST', url: string, payload?: object) => t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
const environment = (id: string) => `/v1/tenants/${tenantId}/environments/${id}`;

describe('queries bound to a scope', () => {
  it('an API secret is out of reach of the queries of another environment of the same tenant', async () => {
    const created = await api('POST', `${environment(mine)}/api-secrets`, { name: 'gateway', purposes: ['authzen'] });
    expect(created.statusCode, created.body).toBe(201);
    const { id } = created.json().apiSecret as { id: string };
    const elsewhere = createApiSecretQueries(t.pool, other);
    await expect(elsewhere.revoke(id)).rejects.toThrow();
    await expect(elsewhere.update(id, { name: 'taken' })).rejects.toThrow();
    await elsewhere.delete(id);
    expect(await elsewhere.find(id)).toBeNull();
    const res = await api('GET', `${environment(mine)}/api-secrets/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().apiSecret).toMatchObject({ id, name: 'gateway', revokedAt: null, active: true });
  });

  it('a trust-store entry is out of reach of the queries of another environment of the same tenant', async () => {
    const created = await api('POST', `${environment(mine)}/mcp/trust-store`, { kind: 'agent', subject: `agent-${crypto.randomUUID()}`, name: 'Agent' });
    expect(created.statusCode, created.body).toBe(201);
    const { id } = created.json().entry as { id: string };
    const elsewhere = createTrustStoreEntryQueries(t.pool, other);
    await expect(elsewhere.update(id, { status: 'revoked' })).rejects.toThrow();
    await elsewhere.delete(id);
    expect(await elsewhere.find(id)).toBeNull();
    const res = await api('GET', `${environment(mine)}/mcp/trust-store/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().entry).toMatchObject({ id, name: 'Agent', status: 'pending', revokedAt: null });
  });

  it('a webhook endpoint is out of reach of the queries of another tenant', async () => {
    const created = await api('POST', `/v1/tenants/${tenantId}/webhooks`, {
      url: 'https://93.184.216.34/hooks',
      description: 'billing',
      eventTypes: ['tenant.*'],
    });
    expect(created.statusCode, created.body).toBe(201);
    const { id } = created.json().endpoint as { id: string };
    const tenant = (await api('POST', '/v1/tenants', { name: 'Elsewhere' })).json().tenant as { id: string };
    const elsewhere = createWebhookEndpointQueries(t.pool, tenant.id);
    await expect(elsewhere.updateEndpoint(id, { description: 'taken', active: false })).rejects.toThrow();
    await elsewhere.deleteEndpoint(id);
    expect(await elsewhere.findEndpoint(id)).toBeNull();
    const res = await api('GET', `/v1/tenants/${tenantId}/webhooks/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json().endpoint).toMatchObject({ id, description: 'billing', active: true });
  });
});
