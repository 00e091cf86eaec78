// Every SCIM failure is a SCIM error body (status as a string, detail), whatever raised it: authentication, unknown
// routes and resources, media types, malformed JSON, oversized bodies, wrong shapes and hostile values (never a 5xx).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp } from '../helpers/app.ts';
import { ERROR, scim, startScimApp, type ScimEnvironment } from '../helpers/scim.ts';

let t: TestApp;
let env: ScimEnvironment;
beforeAll(async () => ({ t, env } = await startScimApp()));
afterAll(() => t.close());

const raw = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: string) =>
  t.app.inject({ method, url: `/v1/scim/v2${url}`, headers: { authorization: `Bearer ${env.token}`, ...headers }, ...(payload !== undefined && { payload }) });

describe('SCIM errors', () => {
  it.each([
    ['no token', 'GET', '/Users', { authorization: '' }, undefined, 401, undefined],
    ['an unknown route', 'GET', '/Nope', {}, undefined, 404, undefined],
    ['text/plain', 'POST', '/Users', { 'content-type': 'text/plain' }, 'userName=x', 415, undefined],
    ['malformed JSON', 'POST', '/Users', { 'content-type': 'application/scim+json' }, '{"userName":', 400, 'invalidSyntax'],
    ['an array body', 'POST', '/Users', { 'content-type': 'application/json' }, '[]', 400, 'invalidSyntax'],
    ['a body over 1 MiB', 'POST', '/Users', { 'content-type': 'application/json' }, JSON.stringify({ userName: 'x'.repeat(1_100_000) }), 413, undefined],
    ['a NUL in a value', 'POST', '/Users', { 'content-type': 'application/json' }, JSON.stringify({ userName: 'a\u0000b' }), 400, 'invalidValue'],
  ] as const)('answers %s with a SCIM %i', async (_, method, url, headers, payload, status, scimType) => {
    const res = await raw(method, url, headers, payload);
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toBe('application/scim+json; charset=utf-8');
    expect(res.json()).toEqual({ schemas: [ERROR], status: String(status), ...(scimType && { scimType }), detail: expect.any(String) });
  });

  it.each([
    [{ schemas: [] }, 'userName'],
    [{ userName: {} }, 'userName'],
    [{ userName: 'x@example.com', active: 'maybe' }, 'active'],
    [{ userName: 'x@example.com', addresses: 'x' }, 'addresses'],
    [{ userName: 'x@example.com', name: [] }, 'name'],
    [{ userName: 'x@example.com', emails: [{ value: {} }] }, 'emails.value'],
  ])('refuses the user %j with 400 invalidValue naming %s', async (body, name) => {
    const res = await scim(t, env.token, 'POST', '/Users', body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ scimType: 'invalidValue', detail: expect.stringContaining(name) });
  });

  it('answers hostile values in every attribute with a 4xx or a success, never a 5xx', async () => {
    const hostile = [null, true, -1, 1e308, '', 'line\nbreak', 'x'.repeat(100_000), [], [null], {}, { $gt: '' }];
    const attributes = [
      'userName',
      'externalId',
      'name',
      'displayName',
      'active',
      'emails',
      'phoneNumbers',
      'addresses',
      'groups',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
      'meta',
      'id',
    ];
    const failures: string[] = [];
    for (const attribute of attributes) {
      for (const value of hostile) {
        const res = await scim(t, env.token, 'POST', '/Users', { userName: `h${crypto.randomUUID()}@example.com`, [attribute]: value });
        if (res.status >= 500) failures.push(`${attribute}=${JSON.stringify(value).slice(0, 20)} → ${res.status}`);
        const patched = await scim(t, env.token, 'PATCH', `/Users/${crypto.randomUUID()}`, { Operations: [{ op: 'add', path: attribute, value }] });
        if (patched.status >= 500) failures.push(`PATCH ${attribute}=${JSON.stringify(value).slice(0, 20)} → ${patched.status}`);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
