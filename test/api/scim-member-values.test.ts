// A group member without a `value` (`{}`, `{ value: null }`, a lone object) is a client mistake: 400 invalidValue
// naming members.value, in POST, PUT, PATCH and Bulk, never a 5xx; in Bulk each operation answers on its own and the
// operations performed before it are reported.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp } from '../helpers/app.ts';
import { ERROR, GROUP, patch, scim, startScimApp, USER, type ScimEnvironment } from '../helpers/scim.ts';

const BULK = 'urn:ietf:params:scim:api:messages:2.0:BulkRequest';
let t: TestApp;
let env: ScimEnvironment;
beforeAll(async () => ({ t, env } = await startScimApp()));
afterAll(() => t.close());

const MISSING: unknown[][] = [[[{}]], [[{ value: null }]], [{}], [[{ display: 'Ada', $ref: null }]]];
const refusal = { schemas: [ERROR], status: '400', scimType: 'invalidValue', detail: expect.stringContaining('members.value') };
const newGroup = async () => {
  const res = await scim(t, env.token, 'POST', '/Groups', { schemas: [GROUP], displayName: `g-${crypto.randomUUID()}` });
  expect(res.status).toBe(201);
  return res.body as { id: string; displayName: string };
};

describe('a group member without a value', () => {
  it.each(MISSING)('refuses members %j in a POST and a PUT with 400 invalidValue', async (members) => {
    const created = await scim(t, env.token, 'POST', '/Groups', { schemas: [GROUP], displayName: `g-${crypto.randomUUID()}`, members });
    expect(created.status).toBe(400);
    expect(created.body).toEqual(refusal);
    const group = await newGroup();
    const replaced = await scim(t, env.token, 'PUT', `/Groups/${group.id}`, { schemas: [GROUP], displayName: group.displayName, members });
    expect(replaced.status).toBe(400);
    expect(replaced.body).toEqual(refusal);
  });

  it.each(MISSING)('refuses members %j in a PATCH add and replace with 400 invalidValue', async (members) => {
    const group = await newGroup();
    for (const op of ['add', 'Replace']) {
      const res = await scim(t, env.token, 'PATCH', `/Groups/${group.id}`, patch({ op, path: 'members', value: members }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual(refusal);
    }
    const pathless = await scim(t, env.token, 'PATCH', `/Groups/${group.id}`, patch({ op: 'add', value: { members } }));
    expect(pathless.body).toEqual(refusal);
  });

  it('answers each Bulk operation on its own and reports those performed before a refused one', async () => {
    const userName = `bulk-${crypto.randomUUID()}@example.com`;
    const res = await scim(t, env.token, 'POST', '/Bulk', {
      schemas: [BULK],
      Operations: [
        { method: 'POST', path: '/Users', bulkId: 'u', data: { schemas: [USER], userName } },
        { method: 'POST', path: '/Groups', bulkId: 'g', data: { schemas: [GROUP], displayName: `bulk-${crypto.randomUUID()}`, members: [{}] } },
        { method: 'PATCH', path: '/Users/bulkId:u', data: patch({ op: 'replace', path: 'title', value: 'After' }) },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.Operations).toEqual([
      { method: 'POST', bulkId: 'u', status: '201', location: expect.stringContaining('/Users/'), version: expect.any(String) },
      { method: 'POST', bulkId: 'g', status: '400', response: refusal },
      { method: 'PATCH', status: '200', location: expect.stringContaining('/Users/'), version: expect.any(String) },
    ]);
    const found = await scim(t, env.token, 'GET', `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);
    expect(found.body.Resources[0].title).toBe('After');
  });
});
