// Names (of tenants, organizations, credentials, projects, environments, connections, channels) refuse control
// characters and bidirectional controls, which forge lines or reorder text wherever a name is shown.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let admin: string;
let projectId: string;
let environmentId: string;
beforeAll(async () => {
  t = await startTestApp();
  admin = await t.token();
  const { project } = (
    await t.app.inject({ method: 'POST', url: `/v1/tenants/${t.credentials.tenantId}/projects`, headers: bearer(admin), payload: { name: 'Web' } })
  ).json();
  projectId = project.id;
  environmentId = project.environments[0].id;
});
afterAll(() => t.close());

const refused = (path: string, codePoint: string, code = 'request.invalid') => {
  const message = `must not contain control or bidirectional formatting characters (found ${codePoint})`;
  return { error: `Invalid request: ${path} ${message}.`, code, requestId: expect.any(String), details: [{ path, message }] };
};

describe('names with control or bidirectional characters', () => {
  const tenant = () => `/v1/tenants/${t.credentials.tenantId}`;
  const org = () => `/v1/organizations/${t.credentials.organizationId}`;
  it.each([
    ['a tenant name with ESC', 'POST', () => '/v1/tenants', () => ({ name: 'Acme\u001b[2J' }), 'body.name', 'U+001B'],
    ['a tenant name with CR/LF', 'PATCH', tenant, () => ({ name: 'Acme\r\nAdmin' }), 'body.name', 'U+000D'],
    ['a tenant company with DEL', 'PATCH', tenant, () => ({ company: 'Acme\u007f Inc.' }), 'body.company', 'U+007F'],
    ['an organization name with an RTL override', 'PATCH', org, () => ({ name: 'Payroll\u202Efdp.exe' }), 'body.name', 'U+202E'],
    ['a service account name with a C1 control', 'POST', () => `${org()}/service-accounts`, () => ({ name: 'ci\u0085' }), 'body.name', 'U+0085'],
    ['an organization key name with an isolate', 'POST', () => `${org()}/keys`, () => ({ name: '\u2067deploy' }), 'body.name', 'U+2067'],
    ['a project name with a tab', 'POST', () => `${tenant()}/projects`, () => ({ name: 'Web\tApp' }), 'body.name', 'U+0009'],
    [
      'an environment name with a right-to-left mark',
      'POST',
      () => `${tenant()}/projects/${projectId}/environments`,
      () => ({ name: 'staging\u200F' }),
      'body.name',
      'U+200F',
    ],
    [
      'a connection name with a line separator',
      'POST',
      () => `${tenant()}/environments/${environmentId}/connections`,
      () => ({ providerId: 'google', formPayload: '{}', name: 'Google\u2028Login' }),
      'body.name',
      'U+2028',
    ],
    [
      'a notification channel name with a bell',
      'POST',
      () => `${tenant()}/notification-channels`,
      () => ({ kind: 'pagerduty', name: 'On call\u0007', eventTypes: ['*'], secrets: { routingKey: 'rk' } }),
      'body.name',
      'U+0007',
    ],
  ])('refuses %s with 400 naming the field', async (_name, method, url, payload, path, codePoint) => {
    const res = await t.app.inject({ method: method as 'POST', url: url(), headers: bearer(admin), payload: payload() });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(refused(path, codePoint));
  });

  it("refuses a channel's label with a bidirectional embedding, naming the config field", async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${t.credentials.tenantId}/notification-channels`,
      headers: bearer(admin),
      payload: { kind: 'pagerduty', name: 'On call', eventTypes: ['*'], config: { source: 'iam\u202Bx' }, secrets: { routingKey: 'rk' } },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(refused('body.config.source', 'U+202B', 'notification_channel.invalid'));
  });

  it('refuses a personal access token name with a newline', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/personal-access-tokens',
      headers: bearer(t.credentials.personalAccessToken),
      payload: { name: 'laptop\nadmin' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual(refused('body.name', 'U+000A'));
  });

  it('keeps accepting letters of every script, emoji and newlines in descriptions', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/v1/tenants',
      headers: bearer(admin),
      payload: { name: 'شركة 株式会社 Ünïcödé 🚀', description: 'line 1\nline 2\ttabbed', company: 'Ac\u200dme' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().tenant).toMatchObject({ name: 'شركة 株式会社 Ünïcödé 🚀', description: 'line 1\nline 2\ttabbed' });
  });
});
