import { SignJWT, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, clientCredentialsToken, startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await startTestApp();
  admin = await t.token();
});
afterAll(() => t.close());

const listTenants = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url: '/v1/tenants', headers });

describe('bearer authentication', () => {
  it('401s a missing token with WWW-Authenticate: Bearer', async () => {
    const res = await listTenants({});
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="iam"');
    expect(res.json()).toEqual({ error: expect.any(String), code: 'auth.missing_token', requestId: expect.any(String) });
  });

  it.each([
    ['a malformed header', { authorization: 'Token abc' }, 'auth.malformed_token'],
    ['a garbage JWT', bearer('abc.def.ghi'), 'auth.invalid_token'],
    ['an unknown PAT', bearer('adpat_0000000000000000000000000000000000000000000000000'), 'auth.invalid_token'],
  ])('401s %s', async (_name, headers, code) => {
    const res = await listTenants(headers);
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe(code);
    expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="iam", error="invalid_(token|request)"/);
  });

  it('401s a token signed by a key the service does not know', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT({ scope: '*' })
      .setProtectedHeader({ alg: 'ES256', kid: 'forged' })
      .setIssuer(t.config.publicBaseUrl)
      .setAudience(`${t.config.publicBaseUrl}/v1`)
      .setSubject(crypto.randomUUID())
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    expect((await listTenants(bearer(forged))).statusCode).toBe(401);
  });

  it('401s an expired token (beyond the clock tolerance)', async () => {
    const { kid, key } = t.keys.current();
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({ scope: '*' })
      .setProtectedHeader({ alg: 'ES256', kid })
      .setIssuer(t.config.publicBaseUrl)
      .setAudience(`${t.config.publicBaseUrl}/v1`)
      .setSubject(crypto.randomUUID())
      .setIssuedAt(now - 1000)
      .setExpirationTime(now - 120)
      .sign(key);
    const res = await listTenants(bearer(expired));
    expect(res.statusCode).toBe(401);
    expect(res.json().error).toMatch(/expired/);
  });

  it('401s a token for another audience', async () => {
    const { kid, key } = t.keys.current();
    const other = await new SignJWT({ scope: '*' })
      .setProtectedHeader({ alg: 'ES256', kid })
      .setIssuer(t.config.publicBaseUrl)
      .setAudience('https://elsewhere.example')
      .setSubject(crypto.randomUUID())
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(key);
    expect((await listTenants(bearer(other))).statusCode).toBe(401);
  });

  it('refuses the tokens of a disabled service account on the next request', async () => {
    const org = t.credentials.organizationId;
    const created = (
      await t.app.inject({
        method: 'POST',
        url: `/v1/organizations/${org}/service-accounts`,
        headers: bearer(admin),
        payload: { name: 'ci', scopes: ['tenants:read'] },
      })
    ).json();
    const token = await clientCredentialsToken(t.app, created.serviceAccount.clientId, created.clientSecret);
    expect((await listTenants(bearer(token))).statusCode).toBe(200);
    const disable = await t.app.inject({
      method: 'PATCH',
      url: `/v1/organizations/${org}/service-accounts/${created.serviceAccount.id}`,
      headers: bearer(admin),
      payload: { active: false },
    });
    expect(disable.json().serviceAccount.active).toBe(false);
    await expect.poll(async () => (await listTenants(bearer(token))).statusCode, { timeout: 2000 }).toBe(401);
    const res = await listTenants(bearer(token));
    expect(res.json().error).toMatch(/disabled/);
    // and it can get no new token
    const again = await t.app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      payload: { grant_type: 'client_credentials', client_id: created.serviceAccount.clientId, client_secret: created.clientSecret },
    });
    expect(again.statusCode).toBe(401);
  });

  it('keeps tokens signed by a retired key valid, and signs new ones with the new key', async () => {
    const before = await t.token();
    const rotated = await t.app.inject({ method: 'POST', url: '/v1/signing-keys/rotate', headers: bearer(admin) });
    expect(rotated.statusCode).toBe(200);
    const keys = rotated.json().keys as { kid: string; status: string }[];
    expect(keys.map((k) => k.status).sort()).toEqual(['active', 'retired']);
    const after = await t.token();
    const jwks = (await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).json();
    expect(jwks.keys).toHaveLength(2);
    expect((await listTenants(bearer(before))).statusCode).toBe(200);
    expect((await listTenants(bearer(after))).statusCode).toBe(200);
    expect(JSON.parse(Buffer.from(after.split('.')[0]!, 'base64url').toString()).kid).toBe(keys.find((k) => k.status === 'active')!.kid);
  });
});
