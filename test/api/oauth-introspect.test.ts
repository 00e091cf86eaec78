import { decodeJwt, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, clientCredentialsToken, startTestApp, type TestApp } from '../helpers/app.ts';
import { newEnvironments, otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let admin: string;
let operatorId: string;
let tenantId: string;
let environmentId: string;
let userId: string;
let impersonation: string;
let grantId: string;
/** A service account of the organization holding impersonation:read only. */
let introspector: { clientId: string; clientSecret: string; id: string };

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const introspect = (options: { headers?: Record<string, string>; payload?: object | string }) =>
  t.app.inject({ method: 'POST', url: '/v1/oauth/introspect', ...options });
const asAdmin = async (token: string) => {
  const res = await introspect({ headers: bearer(admin), payload: { token } });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Record<string, unknown>;
};

async function serviceAccount(scopes: string[]) {
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/organizations/${t.credentials.organizationId}/service-accounts`,
    headers: bearer(admin),
    payload: { name: `introspector ${scopes.join(' ')}`, scopes },
  });
  expect(res.statusCode, res.body).toBe(201);
  const { serviceAccount: sa, clientSecret } = res.json();
  return { clientId: sa.clientId as string, clientSecret: clientSecret as string, id: sa.id as string };
}

beforeAll(async () => {
  t = await startTestApp();
  admin = await t.token();
  operatorId = decodeJwt(admin).sub!;
  tenantId = t.credentials.tenantId;
  environmentId = (await newEnvironments(t, admin)).environmentIds[0]!;
  const env = `/v1/tenants/${tenantId}/environments/${environmentId}`;
  const user = await t.app.inject({ method: 'POST', url: `${env}/directory/users`, headers: bearer(admin), payload: { userName: 'ada@example.com' } });
  userId = user.json().user.id;
  const issued = await t.app.inject({
    method: 'POST',
    url: `${env}/impersonation/grants`,
    headers: bearer(admin),
    payload: { userId, reason: 'Support ticket', durationSeconds: 300 },
  });
  expect(issued.statusCode, issued.body).toBe(201);
  ({ token: impersonation } = issued.json());
  grantId = issued.json().grant.id;
  introspector = await serviceAccount(['impersonation:read']);
});
afterAll(() => t.close());

describe('POST /v1/oauth/introspect (RFC 7662)', () => {
  it('describes an active impersonation token, to a client authenticated with Basic credentials and a form body', async () => {
    const res = await introspect({
      headers: { authorization: basic(introspector.clientId, introspector.clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ token: impersonation, token_type_hint: 'access_token' }),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const claims = decodeJwt(impersonation);
    expect(res.json()).toEqual({
      active: true,
      sub: userId,
      act: { sub: operatorId, actor_type: 'service_account' },
      exp: claims.exp,
      iat: claims.iat,
      iss: t.config.publicBaseUrl,
      aud: `${t.config.publicBaseUrl}/v1/impersonation`,
      jti: claims.jti,
      token_type: 'impersonation',
      grant_id: grantId,
      environment_id: environmentId,
      tenant_id: tenantId,
    });
  });

  it('takes client credentials in a JSON body, or a bearer management token with impersonation:read', async () => {
    const posted = await introspect({ payload: { token: impersonation, client_id: introspector.clientId, client_secret: introspector.clientSecret } });
    expect(posted.statusCode, posted.body).toBe(200);
    expect(posted.json()).toMatchObject({ active: true, grant_id: grantId });
    const narrow = await t.token('impersonation:read');
    const withBearer = await introspect({
      headers: { ...bearer(narrow), 'content-type': 'application/x-www-form-urlencoded' },
      payload: form({ token: impersonation }),
    });
    expect(withBearer.statusCode).toBe(200);
    expect(withBearer.json()).toMatchObject({ active: true, sub: userId });
  });

  it("describes the service's own management credentials while they are valid", async () => {
    const narrow = await clientCredentialsToken(t.app, introspector.clientId, introspector.clientSecret);
    const claims = decodeJwt(narrow);
    expect(await asAdmin(narrow)).toEqual({
      active: true,
      sub: introspector.id,
      scope: 'impersonation:read',
      client_id: introspector.clientId,
      exp: claims.exp,
      iat: claims.iat,
      iss: t.config.publicBaseUrl,
      aud: `${t.config.publicBaseUrl}/v1`,
      jti: claims.jti,
      token_type: 'management',
      principal_type: 'service_account',
    });
    expect(await asAdmin(t.credentials.personalAccessToken)).toMatchObject({
      active: true,
      sub: t.credentials.userId,
      token_type: 'management',
      principal_type: 'user',
    });

    // Disabling the service account ends its token.
    const disabled = await t.app.inject({
      method: 'PATCH',
      url: `/v1/organizations/${t.credentials.organizationId}/service-accounts/${introspector.id}`,
      headers: bearer(admin),
      payload: { active: false },
    });
    expect(disabled.statusCode, disabled.body).toBe(200);
    expect(await asAdmin(narrow)).toEqual({ active: false });
    await t.app.inject({
      method: 'PATCH',
      url: `/v1/organizations/${t.credentials.organizationId}/service-accounts/${introspector.id}`,
      headers: bearer(admin),
      payload: { active: true },
    });
  });

  it('answers { active: false } for anything that is not a token in force, never an error', async () => {
    const { keys } = t;
    const { kid, key } = keys.current();
    const expired = await new SignJWT({ act: { sub: operatorId, actor_type: 'service_account' }, token_type: 'impersonation', grant_id: grantId })
      .setProtectedHeader({ alg: 'ES256', kid, typ: 'impersonation+jwt' })
      .setIssuer(t.config.publicBaseUrl)
      .setAudience(`${t.config.publicBaseUrl}/v1/impersonation`)
      .setSubject(userId)
      .setJti(decodeJwt(impersonation).jti!)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 3600)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 600)
      .sign(key);
    // Well signed, but for a grant that does not exist.
    const unknownGrant = await new SignJWT({
      act: { sub: operatorId, actor_type: 'service_account' },
      token_type: 'impersonation',
      grant_id: crypto.randomUUID(),
    })
      .setProtectedHeader({ alg: 'ES256', kid, typ: 'impersonation+jwt' })
      .setIssuer(t.config.publicBaseUrl)
      .setAudience(`${t.config.publicBaseUrl}/v1/impersonation`)
      .setSubject(userId)
      .setJti(crypto.randomUUID())
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(key);
    const [header, payload] = impersonation.split('.');
    const tampered = `${header}.${payload}.${Buffer.from('not the signature').toString('base64url')}`;
    for (const token of ['', 'garbage', 'a.b.c', 'adpat_nope', 'adok_nope', expired, unknownGrant, tampered, `${impersonation}x`, 'x'.repeat(5000)]) {
      if (token === '') continue;
      expect(await asAdmin(token), token.slice(0, 40)).toEqual({ active: false });
    }
  });

  it('answers an impersonation token of an environment the caller cannot reach as inactive', async () => {
    const { token: theirs } = await otherOrganization(t);
    const res = await introspect({ headers: bearer(theirs), payload: { token: impersonation } });
    expect(res.json()).toEqual({ active: false });
    // Their own token, or ours to them, likewise.
    expect((await introspect({ headers: bearer(theirs), payload: { token: admin } })).json()).toEqual({ active: false });
    expect(await asAdmin(theirs)).toEqual({ active: false });
  });

  it('requires the caller to authenticate (401 in RFC 6749 form) and to hold impersonation:read (403)', async () => {
    const none = await introspect({ payload: { token: impersonation } });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    expect(none.headers['cache-control']).toBe('no-store');

    const wrong = await introspect({ headers: { authorization: basic(introspector.clientId, 'wrong') }, payload: { token: impersonation } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error).toBe('invalid_client');
    expect(wrong.headers['www-authenticate']).toBe('Basic realm="iam"');

    const badBearer = await introspect({ headers: bearer('not-a-token'), payload: { token: impersonation } });
    expect(badBearer.statusCode).toBe(401);
    expect(badBearer.json().error).toBe('invalid_client');

    const both = await introspect({
      headers: { authorization: basic(introspector.clientId, introspector.clientSecret) },
      payload: { token: impersonation, client_secret: introspector.clientSecret },
    });
    expect(both.statusCode).toBe(400);
    expect(both.json().error).toBe('invalid_request');

    const reader = await serviceAccount(['directory:read']);
    const unscoped = await introspect({ headers: { authorization: basic(reader.clientId, reader.clientSecret) }, payload: { token: impersonation } });
    expect(unscoped.statusCode).toBe(403);
    expect(unscoped.json()).toEqual({ error: 'insufficient_scope', error_description: expect.any(String) });
  });

  it('requires a token (400 invalid_request)', async () => {
    const res = await introspect({ headers: bearer(admin), payload: {} });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'invalid_request', error_description: 'token is required.' });
    const wrongType = await introspect({ headers: bearer(admin), payload: { token: 42 } });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().error).toBe('invalid_request');
  });
});
