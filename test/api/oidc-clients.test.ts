// OIDC clients of an environment: registered with the SPEC shapes, the secret (adoc_…) shown once at register and
// rotate and sealed with the master key for the provider, listed and read without it, changed, deleted; every change
// audited with its event; other organizations see none of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'slonik';
import { z } from 'zod';
import { decrypt, hasValidChecksum } from '../../lib/crypto.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments, otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let token: string;
let tenantId: string;
let environmentId: string;
let base: string;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  ({
    tenantId,
    environmentIds: [environmentId],
  } = (await newEnvironments(t)) as { tenantId: string; environmentIds: [string] });
  base = `/v1/tenants/${tenantId}/environments/${environmentId}/oidc/clients`;
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const api = (method: Method, url: string, payload?: object, auth = token) =>
  t.app.inject({ method, url, headers: bearer(auth), ...(payload ? { payload } : {}) });

async function register(body: object = {}) {
  const res = await api('POST', base, { clientName: 'Shop', redirectUris: ['https://shop.example.com/cb'], ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { client: Record<string, unknown> & { id: string; clientId: string }; clientSecret?: string };
}

/** The secret the provider will compare: the sealed column, opened with the master key. */
const sealedSecret = async (clientId: string) => {
  const sealed = await t.pool.oneFirst(
    sql.type(z.object({ s: z.string().nullable() }))`SELECT secret_encrypted AS s FROM oidc_clients WHERE client_id = ${clientId}`,
  );
  return sealed && decrypt(t.masterKey, sealed);
};

describe('OIDC clients', () => {
  it('registers a confidential client with every SPEC field, its secret shown once and sealed for the provider', async () => {
    const { client, clientSecret } = await register({
      description: 'The shop',
      logoUri: 'https://shop.example.com/logo.png',
      clientUri: 'https://shop.example.com',
      policyUri: 'https://shop.example.com/privacy',
      tosUri: 'https://shop.example.com/terms',
      postLogoutRedirectUris: ['https://shop.example.com/bye'],
    });
    expect(clientSecret).toMatch(/^adoc_[0-9A-Za-z]{49}$/);
    expect(hasValidChecksum(clientSecret!, 'adoc')).toBe(true);
    expect(client).toEqual({
      id: expect.any(String),
      clientId: expect.stringMatching(/^oc_[0-9A-Za-z]{24}$/),
      name: 'Shop',
      environmentId,
      description: 'The shop',
      logoUri: 'https://shop.example.com/logo.png',
      clientUri: 'https://shop.example.com',
      policyUri: 'https://shop.example.com/privacy',
      tosUri: 'https://shop.example.com/terms',
      redirectUris: ['https://shop.example.com/cb'],
      postLogoutRedirectUris: ['https://shop.example.com/bye'],
      grantTypes: ['authorization_code', 'refresh_token'],
      responseTypes: ['code'],
      scopes: ['openid', 'profile', 'email', 'offline_access'],
      tokenEndpointAuthMethod: 'client_secret_basic',
      pkceRequired: true,
      agentSignIn: false,
      idTokenSignedResponseAlg: 'ES256',
      backchannelLogoutUri: null,
      jwks: null,
      secretPrefix: clientSecret!.slice(0, 'adoc_'.length + 8),
      dynamicallyRegistered: false,
      active: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(await sealedSecret(client.clientId)).toBe(clientSecret);

    const read = await api('GET', `${base}/${client.clientId}`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual({ client });
    expect(read.body).not.toContain(clientSecret);
    const list = await api('GET', base);
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(clientSecret);
    expect(list.json()).toMatchObject({ total: expect.any(Number), hasMore: false, nextCursor: null });
    expect(list.json().clients).toContainEqual(client);
  });

  it('registers a public client (none) without a secret', async () => {
    const res = await register({ tokenEndpointAuthMethod: 'none', redirectUris: ['com.example.app:/cb', 'http://127.0.0.1:8123/cb'] });
    expect(res.clientSecret).toBeUndefined();
    expect(res.client).toMatchObject({ tokenEndpointAuthMethod: 'none', secretPrefix: null, pkceRequired: true });
    expect(await sealedSecret(res.client.clientId)).toBeNull();
    expect((await api('POST', `${base}/${res.client.clientId}/secret`)).json()).toMatchObject({ code: 'oidc_client.no_secret' });
  });

  it('registers an Agent Sign-In client: authorization_code only, PKCE, no refresh token, up to 10 redirect URIs', async () => {
    const redirectUris = Array.from({ length: 10 }, (_, i) => `https://agent.example.com/cb/${i}`);
    const { client } = await register({ agentSignIn: true, redirectUris });
    expect(client).toMatchObject({
      agentSignIn: true,
      grantTypes: ['authorization_code'],
      responseTypes: ['code'],
      scopes: ['openid', 'profile', 'email'],
      pkceRequired: true,
      redirectUris,
    });
    const eleven = await api('POST', base, { clientName: 'Agent', agentSignIn: true, redirectUris: [...redirectUris, 'https://agent.example.com/cb/10'] });
    expect(eleven.statusCode).toBe(400);
    expect(eleven.json()).toMatchObject({ code: 'request.invalid', details: [{ path: 'body.redirectUris' }] });
    expect(eleven.json().error).toContain('body.redirectUris');
    const patched = await api('PATCH', `${base}/${client.clientId}`, { redirectUris: [...redirectUris, 'https://agent.example.com/cb/10'] });
    expect(patched.statusCode).toBe(400);
    expect(patched.json().details).toEqual([{ path: 'body.redirectUris', message: expect.stringContaining('at most 10') }]);
  });

  it('rotates the secret: the new one is shown once and replaces the old at once', async () => {
    const { client, clientSecret } = await register();
    const res = await api('POST', `${base}/${client.clientId}/secret`);
    expect(res.statusCode).toBe(200);
    const rotated = res.json();
    expect(Object.keys(rotated).sort()).toEqual(['client', 'clientSecret']);
    expect(rotated.clientSecret).toMatch(/^adoc_/);
    expect(rotated.clientSecret).not.toBe(clientSecret);
    expect(rotated.client.secretPrefix).toBe(rotated.clientSecret.slice(0, 13));
    expect(await sealedSecret(client.clientId)).toBe(rotated.clientSecret);
    const read = await api('GET', `${base}/${client.clientId}`);
    expect(read.body).not.toContain(rotated.clientSecret);
  });

  it('updates the fields given and keeps the others; a switch of auth method gives or takes the secret', async () => {
    const { client } = await register();
    const res = await api('PATCH', `${base}/${client.clientId}`, { clientName: 'Shop 2', scopes: ['openid', 'orders:read'], description: null });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ client: { ...client, name: 'Shop 2', scopes: ['openid', 'orders:read'], description: null, updatedAt: expect.any(String) } });

    const pub = await api('PATCH', `${base}/${client.clientId}`, { tokenEndpointAuthMethod: 'none' });
    expect(pub.json()).toEqual({ client: expect.objectContaining({ tokenEndpointAuthMethod: 'none', secretPrefix: null }) });
    expect(await sealedSecret(client.clientId)).toBeNull();
    const back = await api('PATCH', `${base}/${client.clientId}`, { tokenEndpointAuthMethod: 'client_secret_post' });
    expect(back.json().clientSecret).toMatch(/^adoc_/);
    expect(await sealedSecret(client.clientId)).toBe(back.json().clientSecret);
  });

  it('deletes a client: it answers its clientId, then 404', async () => {
    const { client } = await register();
    const res = await api('DELETE', `${base}/${client.clientId}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ clientId: client.clientId });
    for (const [method, url] of [
      ['GET', `${base}/${client.clientId}`],
      ['PATCH', `${base}/${client.clientId}`],
      ['DELETE', `${base}/${client.clientId}`],
      ['POST', `${base}/${client.clientId}/secret`],
    ] as const) {
      const missing = await api(method, url, method === 'PATCH' ? {} : undefined);
      expect(missing.statusCode, `${method} ${url}`).toBe(404);
      expect(missing.json().code).toBe('oidc_client.not_found');
    }
  });

  it('pages the list oldest first', async () => {
    const { environmentIds } = await newEnvironments(t);
    const url = `/v1/tenants/${tenantId}/environments/${environmentIds[0]}/oidc/clients`;
    for (const name of ['A', 'B', 'C']) {
      expect((await api('POST', url, { clientName: name, redirectUris: ['https://a.example.com/cb'] })).statusCode).toBe(201);
    }
    const first = (await api('GET', `${url}?limit=2`)).json();
    expect(first.clients.map((c: { name: string }) => c.name)).toEqual(['A', 'B']);
    expect(first).toMatchObject({ total: 3, hasMore: true, nextCursor: expect.any(String) });
    const second = (await api('GET', `${url}?limit=2&cursor=${first.nextCursor}`)).json();
    expect(second.clients.map((c: { name: string }) => c.name)).toEqual(['C']);
    expect(second).toMatchObject({ hasMore: false, nextCursor: null });
  });

  it('audits every change and emits its event, never with the secret; an update that changes nothing records nothing', async () => {
    const { client, clientSecret } = await register({ clientName: 'Audited' });
    const unchanged = await api('PATCH', `${base}/${client.clientId}`, { clientName: 'Audited', redirectUris: ['https://shop.example.com/cb'] });
    expect(unchanged.json()).toEqual({ client });
    await api('PATCH', `${base}/${client.clientId}`, { clientName: 'Audited 2' });
    const rotated = (await api('POST', `${base}/${client.clientId}/secret`)).json().clientSecret as string;
    await api('DELETE', `${base}/${client.clientId}`);
    const events = (await tenantEvents(t, tenantId)).filter((e) => (e.data.client as { id?: string } | undefined)?.id === client.id);
    expect(events.map((e) => e.type)).toEqual(['oidc_client.created', 'oidc_client.updated', 'oidc_client.secret_rotated', 'oidc_client.deleted']);
    expect(events.every((e) => e.environmentId === environmentId)).toBe(true);
    const audits = await auditEntries(t, { tenantId }, { resourceId: client.id });
    expect(audits.map((a) => a.action)).toEqual(['oidc_client.create', 'oidc_client.update', 'oidc_client.rotate_secret', 'oidc_client.delete']);
    const recorded = JSON.stringify([events, audits]);
    expect(recorded).not.toContain(clientSecret);
    expect(recorded).not.toContain(rotated);
  });

  it("needs oidc-clients scopes and hides other organizations' clients", async () => {
    const { client } = await register();
    expect((await api('POST', base, { clientName: 'X', redirectUris: ['https://x.example.com'] }, await t.token('oidc-clients:read'))).statusCode).toBe(403);
    expect((await api('GET', base, undefined, await t.token('environments:read'))).statusCode).toBe(403);
    expect((await api('GET', base, undefined, await t.token('oidc-clients:read'))).statusCode).toBe(200);
    const other = (await otherOrganization(t)).token;
    for (const [method, url, body] of [
      ['GET', base],
      ['POST', base, { clientName: 'X', redirectUris: ['https://x.example.com'] }],
      ['GET', `${base}/${client.clientId}`],
      ['PATCH', `${base}/${client.clientId}`, {}],
      ['DELETE', `${base}/${client.clientId}`],
      ['POST', `${base}/${client.clientId}/secret`],
    ] as const) {
      const res = await api(method, url, body, other);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
      expect(res.json().code).toBe('tenant.not_found');
    }
    // A client of another environment of the same tenant is not found through this one.
    const { environmentIds } = await newEnvironments(t);
    const elsewhere = `/v1/tenants/${tenantId}/environments/${environmentIds[0]}/oidc/clients/${client.clientId}`;
    expect((await api('GET', elsewhere)).json()).toMatchObject({ code: 'oidc_client.not_found' });
    expect((await api('GET', `${base}/${client.clientId}`)).statusCode).toBe(200);
  });
});
