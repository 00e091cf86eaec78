// Okta sends DELETE with `Content-Type: application/scim+json` and no body; other clients send bodiless actions
// (`POST …/deactivate`) with a JSON content type. An empty body under a JSON media type is no body, on every route:
// never 400 (FST_ERR_CTP_EMPTY_JSON_BODY) nor 415. A route that needs a body still refuses its absence.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type TestApp } from '../helpers/app.ts';
import { ERROR, scim, scimEnvironment, startScimApp, USER, type ScimEnvironment } from '../helpers/scim.ts';

let t: TestApp;
let env: ScimEnvironment;
beforeAll(async () => ({ t, env } = await startScimApp()));
afterAll(() => t.close());

const newUser = async () => {
  const res = await scim(t, env.token, 'POST', '/Users', { schemas: [USER], userName: `empty-${crypto.randomUUID()}@example.com` });
  expect(res.status).toBe(201);
  return res.body.id as string;
};
const empty = (method: 'DELETE' | 'POST', url: string, token: string, contentType: string) =>
  t.app.inject({ method, url, headers: { ...bearer(token), 'content-type': contentType, 'content-length': '0' }, payload: '' });

describe('a JSON content type with an empty body', () => {
  it.each(['application/scim+json', 'application/scim+json; charset=utf-8', 'application/json'])('deletes a SCIM user sent as %s: 204', async (type) => {
    const id = await newUser();
    const res = await empty('DELETE', `/v1/scim/v2/Users/${id}`, env.token, type);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect((await scim(t, env.token, 'GET', `/Users/${id}`)).status).toBe(404);
  });

  it('runs bodiless management actions: POST …/deactivate, POST …/revoke and DELETE', async () => {
    const admin = await t.token();
    const users = `${env.base}/directory/users`;
    const deactivated = await empty('POST', `${users}/${await newUser()}/deactivate`, admin, 'application/json');
    expect(deactivated.statusCode).toBe(200);
    expect(deactivated.json().user.active).toBe(false);
    const deleted = await empty('DELETE', `${users}/${await newUser()}`, admin, 'application/json; charset=utf-8');
    expect(deleted.statusCode).toBe(200);
    const other = await scimEnvironment(t);
    const revoked = await empty('POST', `${other.base}/provisioning-tokens/${other.tokenId}/revoke`, admin, 'application/json');
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().provisioningToken.revokedAt).toEqual(expect.any(String));
  });

  it('still refuses an empty body where one is needed, as a validation error', async () => {
    const res = await empty('POST', '/v1/scim/v2/Users', env.token, 'application/scim+json');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ schemas: [ERROR], status: '400' });
  });
});
