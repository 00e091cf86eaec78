// The environment's dynamic client registration setting (GET/PUT …/settings/oidc): closed by default, saved with an
// audit entry and an `oidc_settings.updated` event, under the environment-settings scopes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments } from '../helpers/fixtures.ts';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ PUBLIC_BASE_URL: 'https://iam.example.com' });
});
afterAll(() => t?.close());

/** A new environment (tests run shuffled: each starts from a closed one) and `call` on its OIDC settings. */
async function settingsOf() {
  const { tenantId, environmentIds } = await newEnvironments(t);
  const environmentId = environmentIds[0]!;
  const url = `/v1/tenants/${tenantId}/environments/${environmentId}/settings/oidc`;
  const call = async (method: 'GET' | 'PUT', payload?: object, scope?: string) => {
    const res = await t.app.inject({ method, url, headers: bearer(await t.token(scope)), ...(payload ? { payload } : {}) });
    return { status: res.statusCode, body: res.json() };
  };
  return { tenantId, environmentId, call };
}

describe('OIDC settings: dynamic registration', () => {
  it('is closed until saved, then opens and closes with an audit entry and an event each', async () => {
    const { tenantId, environmentId, call } = await settingsOf();
    expect(await call('GET')).toEqual({
      status: 200,
      body: { settings: { environmentId, dynamicRegistration: false, registrationEndpoint: null, updatedAt: null } },
    });
    const opened = await call('PUT', { dynamicRegistration: true });
    expect(opened).toEqual({
      status: 200,
      body: {
        settings: {
          environmentId,
          dynamicRegistration: true,
          registrationEndpoint: `https://iam.example.com/v1/oidc/${environmentId}/reg`,
          updatedAt: expect.any(String),
        },
      },
    });
    expect((await call('GET')).body).toEqual(opened.body);
    expect((await call('PUT', { dynamicRegistration: false })).body.settings).toMatchObject({ dynamicRegistration: false, registrationEndpoint: null });

    const events = await tenantEvents(t, tenantId, { type: 'oidc_settings.updated', environmentId });
    expect(events.map((e) => e.data)).toEqual([
      { environmentId, dynamicRegistration: true, previous: { dynamicRegistration: false } },
      { environmentId, dynamicRegistration: false, previous: { dynamicRegistration: true } },
    ]);
    const audit = await auditEntries(t, { tenantId }, { action: 'oidc_settings.update', resourceId: environmentId });
    expect(audit.map((a) => [a.environmentId, a.changes])).toEqual([
      [environmentId, { before: { dynamicRegistration: false }, after: { dynamicRegistration: true } }],
      [environmentId, { before: { dynamicRegistration: true }, after: { dynamicRegistration: false } }],
    ]);
  });

  it('refuses a body that is not a boolean, naming the field, and unknown fields', async () => {
    const { call } = await settingsOf();
    expect(await call('PUT', { dynamicRegistration: 'yes' })).toMatchObject({ status: 400, body: { details: [{ path: 'body.dynamicRegistration' }] } });
    expect(await call('PUT', { dynamicRegistration: true, open: true })).toMatchObject({ status: 400 });
  });

  it('needs environment-settings scopes: read to read, write to save', async () => {
    const { call } = await settingsOf();
    expect((await call('GET', undefined, 'environment-settings:read')).status).toBe(200);
    expect((await call('PUT', { dynamicRegistration: true }, 'environment-settings:read')).status).toBe(403);
    expect((await call('GET', undefined, 'environments:write')).status).toBe(403);
    expect((await call('PUT', { dynamicRegistration: true }, 'environment-settings:write')).status).toBe(200);
  });
});
