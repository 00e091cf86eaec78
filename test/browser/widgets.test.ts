// The widgets in Chromium, embedded in a page of another origin (a tiny local HTTP server that loads
// /v1/widgets/widgets.js from the service): the members widget invites a member, and the security widget lists the
// user's sessions and revokes one; each result is then read through the management API. Every page passes axe-core.
import http from 'node:http';
import type net from 'node:net';
import { sql } from 'slonik';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { describeBrowser, expectAccessible, launchBrowser } from '../helpers/browser.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';

let t: OidcTestApp;
let browser: Browser;
let token: string;
let page: { origin: string; body: string; close(): Promise<void> };

/** The embedding application: one page whose body the test sets, loading the widgets from the service. */
async function startEmbeddingApp() {
  const state = { body: '' };
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html lang="en"><head><title>Embedding app</title><script src="${t.baseUrl}/v1/widgets/widgets.js"></script></head>` +
        `<body><main><h1>Account</h1>${state.body}</main></body></html>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    origin,
    set body(value: string) {
      state.body = value;
    },
    get body() {
      return state.body;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

beforeAll(async () => {
  [t, browser] = await Promise.all([startOidcApp(), launchBrowser()]);
  token = await t.token();
  page = await startEmbeddingApp();
});
afterAll(async () => {
  await Promise.all([browser?.close(), page?.close()]);
  await t?.close();
});

async function widgetToken(tenantId: string, environmentId: string, body: object): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/tenants/${tenantId}/environments/${environmentId}/widgets/tokens`,
    headers: bearer(token),
    payload: { origins: [page.origin], ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().token;
}

async function setUp() {
  const { tenantId, environmentIds } = await newEnvironments(t, token);
  const environmentId = environmentIds[0]!;
  const user = await t.app.inject({
    method: 'POST',
    url: `/v1/tenants/${tenantId}/environments/${environmentId}/directory/users`,
    headers: bearer(token),
    payload: { userName: `ada-${crypto.randomUUID().slice(0, 6)}` },
  });
  return { tenantId, environmentId, userId: user.json().user.id as string };
}

describeBrowser('widgets embedded in another origin', () => {
  it('the members widget invites a member', async () => {
    const { tenantId, environmentId, userId } = await setUp();
    const organizationId = t.credentials.organizationId;
    const w = await widgetToken(tenantId, environmentId, { kind: 'organization_members', userId, organizationId });
    page.body = `<iam-organization-members token="${w}" base-url="${t.baseUrl}"></iam-organization-members>`;
    const context = await browser.newContext();
    const tab = await context.newPage();
    tab.setDefaultTimeout(8_000);
    await tab.goto(page.origin);
    await expect.poll(() => tab.getByRole('heading', { name: 'Invite a member' }).count()).toBe(1);
    await expectAccessible(tab);
    const email = `invitee-${crypto.randomUUID().slice(0, 8)}@example.com`;
    await tab.getByLabel('Email').fill(email);
    await tab.getByLabel('Role').selectOption('admin');
    await tab.getByRole('button', { name: 'Send invitation' }).click();
    await expect.poll(() => tab.getByRole('status').textContent()).toBe(`Invitation sent to ${email}.`);
    expect(await tab.getByRole('list', { name: 'Pending invitations' }).textContent()).toContain(email);
    await expectAccessible(tab);
    const invitations = await t.app.inject({ method: 'GET', url: `/v1/organizations/${organizationId}/invitations`, headers: bearer(token) });
    expect(invitations.json().invitations.find((i: { email: string }) => i.email === email)).toMatchObject({ role: 'admin', status: 'pending' });
    await context.close();
  });

  it('the security widget lists the sessions and revokes one', async () => {
    const { tenantId, environmentId, userId } = await setUp();
    const session = (uid: string, ip: string) =>
      t.pool.oneFirst(sql.unsafe`
        INSERT INTO directory_sessions (environment_id, user_id, session_uid, ip, user_agent, factors, client_ids, last_active_at, expires_at)
        VALUES (${environmentId}, ${userId}, ${uid}, ${ip}, 'Firefox', ${sql.array(['pwd'], 'text')}, ${sql.array([], 'text')}, now(), now() + interval '1 day')
        RETURNING id`) as Promise<string>;
    const laptop = await session('laptop', '203.0.113.7');
    const phone = await session('phone', '198.51.100.4');
    const w = await widgetToken(tenantId, environmentId, { kind: 'user_security', userId });
    page.body = `<iam-user-security token="${w}" base-url="${t.baseUrl}"></iam-user-security>`;
    const context = await browser.newContext();
    const tab = await context.newPage();
    tab.setDefaultTimeout(8_000);
    await tab.goto(page.origin);
    const sessions = tab.getByRole('list', { name: 'Sessions' }).getByRole('listitem');
    await expect.poll(() => sessions.count()).toBe(2);
    await expectAccessible(tab);
    await tab.getByRole('button', { name: /Revoke session: .*198\.51\.100\.4/ }).click();
    await expect.poll(() => tab.getByRole('status').textContent()).toBe('Session revoked.');
    await expect.poll(() => sessions.count()).toBe(1);
    expect(await sessions.textContent()).toContain('203.0.113.7');
    const listed = await t.app.inject({
      method: 'GET',
      url: `/v1/tenants/${tenantId}/environments/${environmentId}/directory/users/${userId}/sessions`,
      headers: bearer(token),
    });
    const byId = Object.fromEntries(listed.json().sessions.map((s: { id: string; active: boolean }) => [s.id, s.active]));
    expect(byId).toEqual({ [laptop]: true, [phone]: false });
    await context.close();
  });
});
