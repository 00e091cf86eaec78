// Response headers: helmet's (nosniff, framing denied, a CSP the Swagger UI works under) on every answer, and
// `Cache-Control: no-store` on every authenticated answer and the token endpoint (credentials are shown once).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await startTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
  admin = await t.token();
});
afterAll(() => t.close());

const csp = (header: unknown) =>
  Object.fromEntries(
    String(header)
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name, values]),
  );

describe('security headers', () => {
  it.each([
    ['GET', '/v1/health'],
    ['GET', '/v1/tenants'],
    ['GET', '/v1/nope'],
    ['POST', '/v1/oauth/token'],
    ['GET', '/docs'],
  ])('%s %s sends nosniff and refuses to be framed', async (method, url) => {
    const res = await t.app.inject({ method: method as 'GET', url, headers: bearer(admin) });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(csp(res.headers['content-security-policy'])['frame-ancestors']).toEqual(["'none'"]);
    expect(res.headers['strict-transport-security']).toMatch(/^max-age=\d+/);
  });

  it('answers the JSON API under a CSP that loads nothing, without the headers only rendered documents need', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/v1/tenants', headers: bearer(admin) });
    expect(csp(res.headers['content-security-policy'])).toEqual({ 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] });
    expect(res.headers).toMatchObject({ 'referrer-policy': 'no-referrer', 'cross-origin-resource-policy': 'same-origin' });
    expect(res.headers).not.toHaveProperty('x-xss-protection');
  });

  it('serves the Swagger UI at /docs with every script and stylesheet it loads, under a CSP that allows them', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const policy = csp(page.headers['content-security-policy']);
    expect(policy['script-src']).toEqual(["'self'"]);
    expect(policy['style-src']).toContain("'self'");
    expect(policy['img-src']).toEqual(["'self'", 'data:']);
    expect(policy).not.toHaveProperty('upgrade-insecure-requests');

    const html = page.body;
    // Every script is a same-origin file ('self'): no inline script the CSP would block.
    expect(html.match(/<script(?![^>]*\ssrc=)[^>]*>/g)).toBeNull();
    const assets = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets).toEqual(expect.arrayContaining(['/docs/static/swagger-ui.css', '/docs/static/swagger-ui-bundle.js', '/docs/static/swagger-initializer.js']));
    for (const asset of assets) {
      expect(asset, 'same origin').toMatch(/^\/docs\//);
      const res = await t.app.inject({ method: 'GET', url: asset });
      expect(res.statusCode, asset).toBe(200);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
    // The initializer loads the document from this origin.
    const initializer = await t.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    const documentUrl = /url: '([^']+)'/.exec(initializer.body)?.[1] ?? '';
    expect((await t.app.inject({ method: 'GET', url: new URL(documentUrl, 'http://x/docs/').pathname })).statusCode).toBe(200);
  });
});

describe('Cache-Control', () => {
  const org = () => `/v1/organizations/${t.credentials.organizationId}`;
  const tenant = () => `/v1/tenants/${t.credentials.tenantId}`;

  it('is no-store on every answer that shows a credential', async () => {
    const post = async (url: string, payload?: object, token = admin) => {
      const res = await t.app.inject({ method: 'POST', url, headers: bearer(token), ...(payload ? { payload } : {}) });
      expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(300);
      expect(res.headers['cache-control'], url).toBe('no-store');
      return res.json();
    };
    const { serviceAccount, clientSecret } = await post(`${org()}/service-accounts`, { name: 'ci' });
    expect(clientSecret).toMatch(/^adsa_/);
    await post(`${org()}/service-accounts/${serviceAccount.id}/rotate-secret`);
    expect((await post('/v1/personal-access-tokens', { name: 'laptop' }, t.credentials.personalAccessToken)).fullToken).toMatch(/^adpat_/);
    expect((await post(`${org()}/keys`, { name: 'deploy' })).fullToken).toMatch(/^adok_/);
    const { endpoint, secret } = await post(`${tenant()}/webhooks`, { url: 'http://127.0.0.1:9/hook', eventTypes: ['tenant.*'] });
    expect(secret).toMatch(/^whsec_/);
    await post(`${tenant()}/webhooks/${endpoint.id}/rotate-secret`);
    expect((await post(`${org()}/invitations`, { email: 'new@example.com' })).invitation).toBeTruthy();
    expect((await post(`${tenant()}/invites`, { email: 'seat@example.com' })).invitationCode).toEqual(expect.any(String));
    const token = await t.app.inject({
      method: 'POST',
      url: '/v1/oauth/token',
      payload: { grant_type: 'client_credentials', client_id: t.credentials.clientId, client_secret: t.credentials.clientSecret },
    });
    expect(token.headers['cache-control']).toBe('no-store');
  });

  it('is no-store on every authenticated answer, errors included, and left to the public routes otherwise', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/v1/tenants', headers: bearer(admin) })).headers['cache-control']).toBe('no-store');
    expect((await t.app.inject({ method: 'GET', url: '/v1/tenants' })).headers['cache-control']).toBe('no-store');
    expect((await t.app.inject({ method: 'GET', url: '/.well-known/jwks.json' })).headers['cache-control']).toBe('public, max-age=300');
    expect((await t.app.inject({ method: 'GET', url: '/v1/health' })).headers['cache-control']).toBeUndefined();
    expect((await t.app.inject({ method: 'GET', url: '/docs/static/swagger-ui.css' })).headers['cache-control']).not.toBe('no-store');
  });
});
