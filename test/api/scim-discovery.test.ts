// Discovery (RFC 7644 §4): exactly what is implemented, behind the provisioning token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp } from '../helpers/app.ts';
import { ENTERPRISE, ERROR, GROUP, LIST, scim, startScimApp, USER, type ScimEnvironment } from '../helpers/scim.ts';

let t: TestApp;
let env: ScimEnvironment;
beforeAll(async () => ({ t, env } = await startScimApp()));
afterAll(() => t.close());

describe('discovery', () => {
  it('advertises patch, bulk, filter, sort and ETags, no password change, and bearer tokens', async () => {
    const res = await scim(t, env.token, 'GET', '/ServiceProviderConfig');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
      patch: { supported: true },
      bulk: { supported: true, maxOperations: 1000, maxPayloadSize: 1048576 },
      filter: { supported: true, maxResults: 200 },
      changePassword: { supported: false },
      sort: { supported: true },
      etag: { supported: true },
      authenticationSchemes: [expect.objectContaining({ type: 'oauthbearertoken', primary: true })],
    });
  });

  it('lists the User and Group resource types with the enterprise extension', async () => {
    const res = await scim(t, env.token, 'GET', '/ResourceTypes');
    expect(res.body).toMatchObject({ schemas: [LIST], totalResults: 2 });
    expect(res.body.Resources).toEqual([
      expect.objectContaining({ id: 'User', endpoint: '/Users', schema: USER, schemaExtensions: [{ schema: ENTERPRISE, required: false }] }),
      expect.objectContaining({ id: 'Group', endpoint: '/Groups', schema: GROUP, schemaExtensions: [] }),
    ]);
    expect((await scim(t, env.token, 'GET', '/ResourceTypes/User')).body.id).toBe('User');
    expect((await scim(t, env.token, 'GET', '/ResourceTypes/Device')).body).toMatchObject({ schemas: [ERROR], status: '404' });
  });

  it('describes the schemas, with only attributes that are stored and returned', async () => {
    const res = await scim(t, env.token, 'GET', '/Schemas');
    expect(res.body.Resources.map((s: { id: string }) => s.id)).toEqual([USER, ENTERPRISE, GROUP]);
    const user = (await scim(t, env.token, 'GET', `/Schemas/${USER}`)).body;
    const userName = user.attributes.find((a: { name: string }) => a.name === 'userName');
    expect(userName).toMatchObject({ type: 'string', required: true, caseExact: false, uniqueness: 'server', mutability: 'readWrite' });
    const emails = user.attributes.find((a: { name: string }) => a.name === 'emails');
    expect(emails.subAttributes.map((s: { name: string }) => s.name)).toEqual(['value', 'type', 'primary']);
    expect(user.attributes.find((a: { name: string }) => a.name === 'password')).toMatchObject({ mutability: 'writeOnly', returned: 'never' });
    const manager = (await scim(t, env.token, 'GET', `/Schemas/${ENTERPRISE}`)).body.attributes.find((a: { name: string }) => a.name === 'manager');
    expect(manager.subAttributes.map((s: { name: string }) => s.name)).toEqual(['value', '$ref', 'displayName']);
    expect((await scim(t, env.token, 'GET', '/Schemas/urn:nope')).status).toBe(404);
  });

  it('needs the token', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/scim/v2/ServiceProviderConfig' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ schemas: [ERROR], status: '401' });
  });
});
