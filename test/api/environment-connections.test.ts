import fs from 'node:fs/promises';
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decrypt } from '../../lib/crypto.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let token: string;
let environmentId: string;
let projectId: string;
let base: string;
beforeAll(async () => {
  t = await startTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'false' });
  token = await t.token();
});
// An environment of its own for every test: the connections one test saves never show in another's lists.
beforeEach(async () => {
  const { project } = (
    await t.app.inject({ method: 'POST', url: `/v1/tenants/${t.credentials.tenantId}/projects`, headers: bearer(token), payload: { name: 'Social' } })
  ).json();
  projectId = project.id;
  environmentId = project.environments[0].id;
  base = `/v1/tenants/${t.credentials.tenantId}/environments/${environmentId}/connections`;
});
afterAll(() => t.close());

const ts = expect.any(String);
const SECRET = 'GOCSPX-very-secret-value-123';
const save = (payload: object, headers = bearer(token)) => t.app.inject({ method: 'POST', url: base, headers, payload });
const list = async () => (await t.app.inject({ method: 'GET', url: base, headers: bearer(token) })).json();
const connectionShape = (providerId: string, name: string, rank: number) => ({
  id: expect.any(String),
  providerId,
  name,
  createdAt: ts,
  updatedAt: ts,
  active: true,
  rank,
});
const Stored = z.object({ config: z.any(), secretsEncrypted: z.string().nullable(), rank: z.number() });
const stored = (id: string) =>
  t.pool.one(sql.type(Stored)`
  SELECT config, secrets_encrypted AS "secretsEncrypted", rank FROM environment_connections WHERE id = ${id}`);

describe('environment connections', () => {
  it('appends connections in rank order, sealing secrets at rest and never returning them', async () => {
    const email = await save({ providerId: 'email_password', formPayload: '{}' });
    expect(email.statusCode).toBe(201);
    expect(email.json()).toEqual({
      tenant: { id: t.credentials.tenantId, name: 'Default' },
      environment: { id: environmentId, name: 'development', description: null },
      connection: connectionShape('email_password', 'Email and password', 0),
    });
    const google = await save({
      providerId: 'google',
      name: 'Google Workspace',
      formPayload: JSON.stringify({ clientId: 'abc.apps.googleusercontent.com', clientSecret: SECRET }),
    });
    expect(google.statusCode).toBe(201);
    const connection = google.json().connection;
    expect(connection).toEqual(connectionShape('google', 'Google Workspace', 1));

    const row = await stored(connection.id);
    expect(row.config).toEqual({ clientId: 'abc.apps.googleusercontent.com' });
    expect(row.secretsEncrypted).not.toContain(SECRET);
    expect(JSON.parse(decrypt(t.masterKey, row.secretsEncrypted!))).toEqual({ clientSecret: SECRET });

    const listed = await list();
    expect(listed).toEqual({
      project: { id: projectId, name: 'Social', type: 'web' },
      environment: { id: environmentId, name: 'development' },
      connections: [email.json().connection, connection],
    });
    const events = await tenantEvents(t, t.credentials.tenantId, { environmentId });
    const audit = (await auditEntries(t, { tenantId: t.credentials.tenantId })).filter((a) => a.environmentId === environmentId);
    expect(audit.map((a) => a.action)).toEqual(expect.arrayContaining(['environment.connection.save']));
    expect(JSON.stringify([events, audit])).not.toContain(SECRET);
    const saved = events.filter((e) => e.subject?.id === connection.id);
    expect(saved.map(({ type, data }) => ({ type, data }))).toEqual([
      { type: 'environment.connection.saved', data: { environmentId, connection, created: true } },
    ]);
  });

  it('updates a connection named by connectionId (200), keeping its rank and the stored secret when left out', async () => {
    const { connection } = (await save({ providerId: 'github', formPayload: JSON.stringify({ clientId: 'Iv1.a', clientSecret: SECRET }) })).json();
    const res = await save({
      providerId: 'github',
      connectionId: connection.id,
      name: 'GitHub (org)',
      formPayload: JSON.stringify({ clientId: 'Iv1.b', scopes: ['read:user'] }),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().connection).toEqual({ ...connection, name: 'GitHub (org)', updatedAt: ts });
    const row = await stored(connection.id);
    expect(row.config).toEqual({ clientId: 'Iv1.b', scopes: ['read:user'] });
    expect(JSON.parse(decrypt(t.masterKey, row.secretsEncrypted!))).toEqual({ clientSecret: SECRET });
    await save({ providerId: 'github', connectionId: connection.id, formPayload: JSON.stringify({ clientId: 'Iv1.b', clientSecret: 'rotated' }) });
    expect(JSON.parse(decrypt(t.masterKey, (await stored(connection.id)).secretsEncrypted!))).toEqual({ clientSecret: 'rotated' });
    expect((await stored(connection.id)).rank).toBe(connection.rank);

    const changed = await save({ providerId: 'google', connectionId: connection.id, formPayload: JSON.stringify({ clientId: 'x', clientSecret: 'y' }) });
    expect(changed.statusCode).toBe(400);
    expect(changed.json()).toMatchObject({
      code: 'environment_connection.provider_changed',
      details: [{ path: 'body.providerId', message: `cannot change: connection ${connection.id} uses github` }],
    });
    const missing = await save({ providerId: 'github', connectionId: crypto.randomUUID(), formPayload: '{"clientId":"x"}' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'environment_connection.not_found' });
  });

  it.each([
    ['google', 'not json', 'body.formPayload', 'is not valid JSON'],
    ['google', '[1,2]', 'body.formPayload', 'must be a JSON object'],
    ['google', 'null', 'body.formPayload', 'must be a JSON object'],
    ['google', '{"clientId":"x"}', 'body.formPayload.clientSecret', 'is required'],
    ['google', '{"clientId":"","clientSecret":"y"}', 'body.formPayload.clientId', 'must not be empty'],
    ['github', '{"clientId":"x","clientSecret":"y","tenant":"z"}', 'body.formPayload.tenant', 'is not a known field'],
    [
      'microsoft',
      '{"clientId":"x","clientSecret":"y","tenant":"not a tenant"}',
      'body.formPayload.tenant',
      'must be common, organizations, consumers, a directory id or a domain',
    ],
    ['oidc', '{"issuer":"http://id.example.com","clientId":"x","clientSecret":"y"}', 'body.formPayload.issuer', 'must be an https URL'],
    ['oidc', '{"issuer":"https://id.example.com","clientId":"x","clientSecret":"y","scopes":["a b"]}', 'body.formPayload.scopes.0', 'must be an OAuth scope'],
    ['saml', '{}', 'body.formPayload.metadataUrl', 'or metadataXml is required'],
    [
      'saml',
      '{"metadataUrl":"https://idp.example.com/md","metadataXml":"<x/>"}',
      'body.formPayload.metadataXml',
      'must not be given together with metadataUrl',
    ],
    ['email_password', '{"allowSignup":true}', 'body.formPayload.allowSignup', 'is not a known field'],
  ])('%s refuses formPayload %s naming %s', async (providerId, formPayload, path, message) => {
    const res = await save({ providerId, formPayload });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'environment_connection.invalid', details: [{ path, message }] });
    expect(res.json().error).toBe(`Invalid request: ${path} ${message}.`);
  });

  it.each([
    ['a NUL in a value', String.raw`{"clientId":"a\u0000b","clientSecret":"y"}`, 'body.formPayload.clientId', 'must not contain U+0000 (NUL)'],
    [
      'a lone surrogate in a value',
      String.raw`{"clientId":"\ud800","clientSecret":"y"}`,
      'body.formPayload.clientId',
      'must not contain an unpaired UTF-16 surrogate',
    ],
    ['a NUL in a secret', String.raw`{"clientId":"x","clientSecret":"\u0000"}`, 'body.formPayload.clientSecret', 'must not contain U+0000 (NUL)'],
    [
      'a NUL in a field name',
      String.raw`{"clientId":"x","clientSecret":"y","a\u0000":1}`,
      String.raw`body.formPayload.a\u0000`,
      'is a field name containing U+0000 (NUL)',
    ],
  ])('refuses a formPayload with %s (400, nothing stored)', async (_case, formPayload, path, message) => {
    const res = await save({ providerId: 'google', formPayload });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'environment_connection.invalid', details: [{ path, message }] });
    expect(res.json().error).toBe(`Invalid request: ${path} ${message}.`);
    expect((await list()).connections).toEqual([]);
  });

  it('refuses an unknown provider, unknown fields, and sources the service could not use', async () => {
    const unknown = await save({ providerId: 'myspace', formPayload: '{}' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().details).toEqual([{ path: 'body.providerId', message: expect.stringMatching(/google/) }]);
    expect((await save({ providerId: 'google', formPayload: '{}', active: false })).json().details).toEqual([
      { path: 'body.active', message: 'is not a known field' },
    ]);

    const badXml = await save({
      providerId: 'saml',
      formPayload: JSON.stringify({ metadataXml: '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata">' }),
    });
    expect(badXml.statusCode).toBe(400);
    expect(badXml.json()).toMatchObject({
      code: 'saml_metadata.malformed_xml',
      details: [{ path: 'body.formPayload.metadataXml', message: expect.stringMatching(/^is not well-formed XML/) }],
    });
    const privateUrl = await save({ providerId: 'saml', formPayload: JSON.stringify({ metadataUrl: 'http://127.0.0.1:9/metadata' }) });
    expect(privateUrl.json()).toMatchObject({
      code: 'environment_connection.url_refused',
      details: [{ path: 'body.formPayload.metadataUrl', message: expect.stringMatching(/loopback/) }],
    });
    const privateIssuer = await save({ providerId: 'oidc', formPayload: JSON.stringify({ issuer: 'https://10.0.0.8', clientId: 'x', clientSecret: 'y' }) });
    expect(privateIssuer.json()).toMatchObject({
      code: 'environment_connection.url_refused',
      details: [{ path: 'body.formPayload.issuer', message: expect.stringMatching(/private/) }],
    });

    const xml = await fs.readFile(new URL('../fixtures/saml/okta.xml', import.meta.url), 'utf8');
    const saml = await save({ providerId: 'saml', name: 'Okta', formPayload: JSON.stringify({ metadataXml: xml }) });
    expect(saml.statusCode).toBe(201);
    expect((await stored(saml.json().connection.id)).secretsEncrypted).toBeNull();
  });

  it('removes a connection, keeping the order of the others; a new one goes last', async () => {
    for (const providerId of ['email_password', 'github', 'google']) {
      const formPayload = providerId === 'email_password' ? '{}' : JSON.stringify({ clientId: 'x', clientSecret: SECRET });
      expect((await save({ providerId, formPayload })).statusCode).toBe(201);
    }
    const before = (await list()).connections;
    const [first, second] = before;
    const res = await t.app.inject({ method: 'DELETE', url: `${base}/${first.id}`, headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      tenant: { id: t.credentials.tenantId, name: 'Default' },
      environment: { id: environmentId, name: 'development' },
      connection: first,
    });
    expect((await list()).connections).toEqual(before.slice(1));
    expect((await t.app.inject({ method: 'DELETE', url: `${base}/${first.id}`, headers: bearer(token) })).statusCode).toBe(404);
    const appended = (await save({ providerId: 'email_password', formPayload: '{}' })).json().connection;
    expect(appended.rank).toBe(Math.max(...before.map((c: { rank: number }) => c.rank)) + 1);
    expect((await list()).connections[0]).toEqual(second);
    const events = await tenantEvents(t, t.credentials.tenantId, { type: 'environment.connection.deleted', environmentId });
    expect(events.map((e) => e.data)).toEqual([{ environmentId, connection: first }]);
  });

  it('needs environments scopes, and hides the connections of tenants in other organizations', async () => {
    expect((await save({ providerId: 'email_password', formPayload: '{}' }, bearer(await t.token('environments:read')))).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: base, headers: bearer(await t.token('projects:write')) })).statusCode).toBe(403);
    const other = await otherOrganization(t);
    const { connection } = (await save({ providerId: 'email_password', formPayload: '{}' })).json();
    expect((await t.app.inject({ method: 'GET', url: base, headers: bearer(other.token) })).statusCode).toBe(404);
    expect((await save({ providerId: 'email_password', formPayload: '{}' }, bearer(other.token))).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'DELETE', url: `${base}/${connection.id}`, headers: bearer(other.token) })).statusCode).toBe(404);
    // An environment of this tenant addressed through another tenant is not found either.
    const theirTenant = (await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(other.token), payload: { name: 'theirs' } })).json().tenant;
    const crossed = await t.app.inject({
      method: 'GET',
      url: `/v1/tenants/${theirTenant.id}/environments/${environmentId}/connections`,
      headers: bearer(other.token),
    });
    expect(crossed.json()).toMatchObject({ code: 'environment.not_found' });
  });
});
