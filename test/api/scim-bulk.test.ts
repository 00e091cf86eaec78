// Bulk (RFC 7644 §3.7): operations in order with bulkId references, failOnErrors, and the advertised limits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp } from '../helpers/app.ts';
import { ERROR, GROUP, scim, startScimApp, USER, type ScimEnvironment } from '../helpers/scim.ts';

const BULK = 'urn:ietf:params:scim:api:messages:2.0:BulkRequest';
let t: TestApp;
let env: ScimEnvironment;
beforeAll(async () => ({ t, env } = await startScimApp()));
afterAll(() => t.close());

describe('Bulk', () => {
  it('creates users and a group referring to them by bulkId, then patches and deletes by bulkId', async () => {
    const res = await scim(t, env.token, 'POST', '/Bulk', {
      schemas: [BULK],
      Operations: [
        { method: 'POST', path: '/Users', bulkId: 'u1', data: { schemas: [USER], userName: 'bulk1@example.com' } },
        { method: 'POST', path: '/Users', bulkId: 'u2', data: { schemas: [USER], userName: 'bulk2@example.com' } },
        {
          method: 'POST',
          path: '/Groups',
          bulkId: 'g',
          data: { schemas: [GROUP], displayName: 'Bulk', members: [{ value: 'bulkId:u1' }, { value: 'bulkId:u2' }] },
        },
        { method: 'PATCH', path: '/Users/bulkId:u1', data: { Operations: [{ op: 'replace', path: 'title', value: 'Bulked' }] } },
        { method: 'DELETE', path: '/Users/bulkId:u2' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:BulkResponse']);
    expect(res.body.Operations.map((o: { method: string; status: string; bulkId?: string }) => [o.method, o.bulkId, o.status])).toEqual([
      ['POST', 'u1', '201'],
      ['POST', 'u2', '201'],
      ['POST', 'g', '201'],
      ['PATCH', undefined, '200'],
      ['DELETE', undefined, '204'],
    ]);
    const groupLocation: string = res.body.Operations[2].location;
    const group = await scim(t, env.token, 'GET', `/Groups/${groupLocation.split('/').pop()}`);
    expect(group.body.members.map((m: { value: string }) => m.value)).toEqual([res.body.Operations[0].location.split('/').pop()]);
    const user = await scim(t, env.token, 'GET', `/Users/${res.body.Operations[0].location.split('/').pop()}`);
    expect(user.body.title).toBe('Bulked');
  });

  it('answers each failed operation with its SCIM error and stops after failOnErrors errors', async () => {
    const res = await scim(t, env.token, 'POST', '/Bulk', {
      schemas: [BULK],
      failOnErrors: 1,
      Operations: [
        { method: 'POST', path: '/Users', bulkId: 'a', data: { userName: 'dup@example.com' } },
        { method: 'POST', path: '/Users', bulkId: 'b', data: { userName: 'DUP@example.com' } },
        { method: 'POST', path: '/Users', bulkId: 'c', data: { userName: 'never@example.com' } },
      ],
    });
    expect(res.body.Operations).toEqual([
      expect.objectContaining({ bulkId: 'a', status: '201' }),
      { method: 'POST', bulkId: 'b', status: '409', response: { schemas: [ERROR], status: '409', scimType: 'uniqueness', detail: expect.any(String) } },
    ]);
    const unresolved = await scim(t, env.token, 'POST', '/Bulk', { schemas: [BULK], Operations: [{ method: 'PATCH', path: '/Users/bulkId:nope', data: {} }] });
    expect(unresolved.body.Operations[0]).toMatchObject({ status: '400', response: { scimType: 'invalidValue' } });
  });

  it('refuses more than maxOperations (400 tooMany) and a body over maxPayloadSize (413)', async () => {
    const many = Array.from({ length: 1001 }, (_, i) => ({ method: 'DELETE', path: `/Users/${i}` }));
    const tooMany = await scim(t, env.token, 'POST', '/Bulk', { schemas: [BULK], Operations: many });
    expect(tooMany.body).toMatchObject({ schemas: [ERROR], status: '400', scimType: 'tooMany' });
    const big = { schemas: [BULK], Operations: [{ method: 'POST', path: '/Users', data: { userName: 'x'.repeat(1_100_000) } }] };
    const tooLarge = await scim(t, env.token, 'POST', '/Bulk', big);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toMatchObject({ schemas: [ERROR], status: '413', detail: expect.any(String) });
  });
});
