// Admin Portal links: the URL shown once, single use, revocable, expiring; the session cookie and CSRF refusals of the
// portal pages; a portal action audited and evented with the portal session as the actor; 400s naming fields.
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments, otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let token: string;
let base: string;
let tenantId: string;
let environmentId: string;
beforeAll(async () => {
  t = await startTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
  token = await t.token();
  const env = await newEnvironments(t);
  tenantId = env.tenantId;
  environmentId = env.environmentIds[0]!;
  base = `/v1/organizations/${t.credentials.organizationId}/portal-links`;
});
afterAll(() => t.close());

const api = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object, auth = token) =>
  t.app.inject({ method, url, headers: bearer(auth), ...(payload ? { payload } : {}) });
const create = async (body: object = {}) => {
  const res = await api('POST', base, { tenantId, environmentId, intent: 'directory_sync', ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { portalLink: { id: string; status: string; prefix: string; expiresAt: string; createdAt: string }; url: string };
};
const pathOf = (url: string) => new URL(url).pathname;
const open = (url: string) => t.app.inject({ method: 'GET', url: pathOf(url) });
const cookieOf = (res: { headers: Record<string, unknown> }) => String(res.headers['set-cookie']).split(';')[0]!;
const portal = (cookie: string, method: 'GET' | 'POST' = 'GET', url = '/portal', form?: Record<string, string>) =>
  t.app.inject({
    method,
    url,
    headers: { cookie, ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
    ...(form ? { payload: new URLSearchParams(form).toString() } : {}),
  });
const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!;

describe('Admin Portal links', () => {
  it('creates a link whose URL is shown once; lists and gets it without the token', async () => {
    const created = await create({ returnUrl: 'https://app.example.com/settings' });
    const linkToken = pathOf(created.url).split('/').pop()!;
    expect(created.url).toBe(`${t.config.publicBaseUrl}/portal/open/${linkToken}`);
    expect(linkToken).toMatch(/^adpl_[0-9A-Za-z]{49}$/);
    expect(created.portalLink).toEqual({
      id: expect.any(String),
      organizationId: t.credentials.organizationId,
      tenantId,
      environmentId,
      intent: 'directory_sync',
      returnUrl: 'https://app.example.com/settings',
      prefix: linkToken.slice(0, 13),
      hint: linkToken.slice(-4),
      status: 'pending',
      expiresAt: expect.any(String),
      sessionLifetimeSeconds: 3600,
      openedAt: null,
      revokedAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const lifetime = Date.parse(created.portalLink.expiresAt) - Date.parse(created.portalLink.createdAt);
    expect(lifetime).toBeGreaterThan(299_000);
    expect(lifetime).toBeLessThan(301_000);
    const got = await api('GET', `${base}/${created.portalLink.id}`);
    expect(got.json()).toEqual({ portalLink: created.portalLink });
    const list = await api('GET', `${base}?limit=200`);
    expect(list.json()).toMatchObject({ hasMore: false, nextCursor: null });
    expect(list.body).not.toContain(linkToken);
    const events = await tenantEvents(t, tenantId, { type: 'portal_link.created' });
    expect(events.find((e) => (e.data.portalLink as { id: string }).id === created.portalLink.id)?.data).toEqual({ portalLink: created.portalLink });
  });

  it('opens once: a session cookie, then the portal; the second open is refused with a page', async () => {
    const { url, portalLink } = await create();
    const first = await open(url);
    expect(first.statusCode).toBe(303);
    expect(first.headers.location).toBe('/portal');
    expect(String(first.headers['set-cookie'])).toMatch(/^iam_portal=[\w-]{43}; Path=\/portal; HttpOnly; SameSite=Lax; Max-Age=3600$/);
    const page = await portal(cookieOf(first));
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('<h1>Set up directory sync</h1>');
    expect(page.body).toContain(`${t.config.publicBaseUrl}/v1/scim/v2`);

    const second = await open(url);
    expect(second.statusCode).toBe(410);
    expect(second.body).toContain('<h1>Link already used</h1>');
    expect(second.headers['set-cookie']).toBeUndefined();
    expect((await api('GET', `${base}/${portalLink.id}`)).json().portalLink).toMatchObject({ status: 'opened', openedAt: expect.any(String) });
    const [opened] = (await tenantEvents(t, tenantId, { type: 'portal_link.opened' })).filter(
      (e) => (e.data.portalLink as { id: string }).id === portalLink.id,
    );
    expect(opened).toMatchObject({ actor: { type: 'portal_session', id: opened!.data.sessionId }, data: { portalLink: { status: 'opened' } } });
  });

  it('refuses a revoked link, and a revoked link ends its session', async () => {
    const pending = await create();
    const revoked = await api('DELETE', `${base}/${pending.portalLink.id}`);
    expect(revoked.json().portalLink).toMatchObject({ status: 'revoked', revokedAt: expect.any(String) });
    expect((await api('DELETE', `${base}/${pending.portalLink.id}`)).json()).toEqual(revoked.json());
    const refused = await open(pending.url);
    expect(refused.statusCode).toBe(410);
    expect(refused.body).toContain('<h1>Link revoked</h1>');

    const used = await create();
    const cookie = cookieOf(await open(used.url));
    expect((await portal(cookie)).statusCode).toBe(200);
    await api('DELETE', `${base}/${used.portalLink.id}`);
    const ended = await portal(cookie);
    expect(ended.statusCode).toBe(401);
    expect(ended.body).toContain('<h1>Session ended</h1>');
    const events = await tenantEvents(t, tenantId, { type: 'portal_link.revoked' });
    expect(events.map((e) => (e.data.portalLink as { id: string }).id)).toEqual(expect.arrayContaining([pending.portalLink.id, used.portalLink.id]));
  });

  it('refuses an expired link, an expired session, no cookie and an unknown token', async () => {
    const late = await create({ expiresInSeconds: 30 });
    await t.pool.query(sql.unsafe`UPDATE portal_links SET expires_at = now() - interval '1 second' WHERE id = ${late.portalLink.id}`);
    expect((await api('GET', `${base}/${late.portalLink.id}`)).json().portalLink.status).toBe('expired');
    const refused = await open(late.url);
    expect(refused.statusCode).toBe(410);
    expect(refused.body).toContain('<h1>Link expired</h1>');

    const { url, portalLink } = await create({ sessionLifetimeSeconds: 60 });
    const cookie = cookieOf(await open(url));
    await t.pool.query(sql.unsafe`UPDATE portal_sessions SET expires_at = now() - interval '1 second' WHERE link_id = ${portalLink.id}`);
    expect((await portal(cookie)).statusCode).toBe(401);
    const none = await portal('');
    expect(none.statusCode).toBe(401);
    expect(none.body).toContain('<h1>No setup session</h1>');
    expect((await t.app.inject({ method: 'GET', url: '/portal/open/adpl_unknown' })).statusCode).toBe(404);
  });

  it('refuses a POST without the session’s CSRF token; with it, acts through the family’s service as the portal session', async () => {
    const { url } = await create();
    const cookie = cookieOf(await open(url));
    const page = await portal(cookie);
    const missing = await portal(cookie, 'POST', '/portal/tokens', { name: 'Entra', kind: 'scim' });
    expect(missing.statusCode).toBe(403);
    expect(missing.body).toContain('The form expired or did not come from this page.');
    const other = cookieOf(await open((await create()).url));
    const foreign = await portal(other, 'POST', '/portal/tokens', { name: 'Entra', kind: 'scim', csrf: csrfOf(page.body) });
    expect(foreign.statusCode).toBe(403);

    const invalid = await portal(cookie, 'POST', '/portal/tokens', { name: 'Entra', kind: 'ldap', csrf: csrfOf(page.body) });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.body).toContain('kind: Invalid option');

    const made = await portal(cookie, 'POST', '/portal/tokens', { name: 'Entra', kind: 'scim', csrf: csrfOf(page.body) });
    expect(made.statusCode).toBe(200);
    const shown = /data-secret>(adscim_\w+)</.exec(made.body)![1]!;
    expect((await portal(cookie)).body).not.toContain(shown);
    const events = await tenantEvents(t, tenantId, { type: 'provisioning_token.created' });
    const event = events.find((e) => (e.data.provisioningToken as { hint: string }).hint === shown.slice(-4))!;
    expect(event.actor.type).toBe('portal_session');
    const entries = await auditEntries(t, { tenantId }, { action: 'provisioning_token.create', actorType: 'portal_session' });
    expect(entries.map((e) => e.resource.id)).toContain(event.subject!.id);
  });
});

describe('Admin Portal pages', () => {
  it('audit_logs: shows the organization’s audit log, filtered by action', async () => {
    const { url } = await create({ intent: 'audit_logs' });
    const cookie = cookieOf(await open(url));
    const page = await portal(cookie, 'GET', '/portal?action=portal_link.create');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Audit log</h1>');
    expect(page.body).toContain('<code>portal_link.create</code>');
    expect(page.body).not.toContain('<code>portal_link.open</code>');
  });

  it('log_streams: adds a webhook endpoint of the link’s environment, its signing secret shown once', async () => {
    const { url } = await create({ intent: 'log_streams' });
    const cookie = cookieOf(await open(url));
    const csrf = csrfOf((await portal(cookie)).body);
    const refused = await portal(cookie, 'POST', '/portal/endpoints', { url: 'not a url', eventTypes: '*', csrf });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('url: must be an http(s) URL');
    const made = await portal(cookie, 'POST', '/portal/endpoints', { url: 'http://127.0.0.1:9/iam', eventTypes: 'tenant.* user.created', csrf });
    expect(made.statusCode).toBe(200);
    expect(made.body).toMatch(/data-secret>whsec_\w+</);
    const [event] = (await tenantEvents(t, tenantId, { type: 'webhook.endpoint.created' })).filter(
      (e) => (e.data.endpoint as { url: string }).url === 'http://127.0.0.1:9/iam',
    );
    expect(event).toMatchObject({ actor: { type: 'portal_session' }, data: { endpoint: { environmentId, eventTypes: ['tenant.*', 'user.created'] } } });
  });
});

describe('Admin Portal link requests', () => {
  it('answers 400 naming the field', async () => {
    const other = await otherOrganization(t);
    const otherTenant = (await api('POST', '/v1/tenants', { name: 'Theirs' }, other.token)).json().tenant.id;
    const cases: [object, string][] = [
      [{ intent: 'sso', environmentId: undefined }, 'body.environmentId'],
      [{ tenantId: otherTenant }, 'body.tenantId'],
      [{ environmentId: crypto.randomUUID() }, 'body.environmentId'],
      [{ intent: 'billing' }, 'intent'],
      [{ returnUrl: 'http://app.example.com/' }, 'body.returnUrl'],
      [{ returnUrl: 'javascript:alert(1)' }, 'returnUrl'],
      [{ expiresInSeconds: 5 }, 'expiresInSeconds'],
      [{ colour: 'red' }, 'colour'],
    ];
    for (const [body, path] of cases) {
      const res = await api('POST', base, { tenantId, environmentId, intent: 'directory_sync', ...body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(
        res
          .json()
          .details.map((d: { path: string }) => d.path)
          .join(' '),
        JSON.stringify(body),
      ).toContain(path);
    }
  });

  it("is 404 for another organization's principal", async () => {
    const { portalLink } = await create();
    const other = await otherOrganization(t);
    for (const [method, url] of [
      ['GET', base],
      ['GET', `${base}/${portalLink.id}`],
      ['DELETE', `${base}/${portalLink.id}`],
    ] as const) {
      const res = await api(method, url, undefined, other.token);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('organization.not_found');
    }
    const ours = await api('GET', `/v1/organizations/${other.organizationId}/portal-links/${portalLink.id}`, undefined, other.token);
    expect(ours.statusCode).toBe(404);
    expect(ours.json().code).toBe('portal_link.not_found');
  });
});
