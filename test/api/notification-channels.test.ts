import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let token: string;
let base: string;
beforeAll(async () => {
  t = await startTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'false' });
  token = await t.token();
  base = `/v1/tenants/${t.credentials.tenantId}/notification-channels`;
});
afterAll(() => t.close());

const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, headers = bearer(token)) =>
  t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
const create = (payload: object, url = base) => call('POST', url, payload);
const ROUTING_KEY = 'R0UT1NGKEY-0123456789-wxyz';
const SLACK_URL = 'https://93.184.216.34/services/T0000/B0000/XXXXXXXXslak';

/** Every recorded trace of a channel: its events and audit entries. */
const tracesOf = async (id: string, tenantId = t.credentials.tenantId) => ({
  events: (await tenantEvents(t, tenantId)).filter((e) => e.subject?.id === id),
  audit: await auditEntries(t, { tenantId }, { resourceId: id }),
});

describe('notification channels', () => {
  it('creates, lists, gets, updates and deletes a channel, never returning or recording its secrets', async () => {
    // A tenant of its own, so that channels other tests create never show in its list.
    const tenant = (await call('POST', '/v1/tenants', { name: 'Channels' })).json().tenant;
    const base = `/v1/tenants/${tenant.id}/notification-channels`;
    const res = await create(
      { kind: 'pagerduty', name: 'On call', eventTypes: ['tenant.*'], config: { source: 'iam' }, secrets: { routingKey: ROUTING_KEY } },
      base,
    );
    expect(res.statusCode).toBe(201);
    const { channel } = res.json();
    expect(res.json()).toEqual({ channel });
    expect(channel).toEqual({
      id: expect.any(String),
      tenantId: tenant.id,
      environmentId: null,
      kind: 'pagerduty',
      name: 'On call',
      eventTypes: ['tenant.*'],
      config: { source: 'iam' },
      secretHints: { routingKey: '…wxyz' },
      active: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const list = await call('GET', `${base}?limit=10`);
    expect(list.json()).toEqual({ channels: [channel], total: 1, nextCursor: null, hasMore: false });
    expect((await call('GET', `${base}/${channel.id}`)).json()).toEqual({ channel });

    const newKey = 'N3WR0UT1NGKEY-9876543210-abcd';
    const patched = await call('PATCH', `${base}/${channel.id}`, { name: 'Paging', active: false, secrets: { routingKey: newKey } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toEqual({
      channel: { ...channel, name: 'Paging', active: false, secretHints: { routingKey: '…abcd' }, updatedAt: expect.any(String) },
    });
    const deleted = await call('DELETE', `${base}/${channel.id}`);
    expect(deleted.json().channel).toMatchObject({ id: channel.id, name: 'Paging' });
    expect((await call('GET', `${base}/${channel.id}`)).statusCode).toBe(404);

    const { events, audit } = await tracesOf(channel.id, tenant.id);
    expect(events.map((e) => e.type)).toEqual(['notification_channel.created', 'notification_channel.updated', 'notification_channel.deleted']);
    expect(events[1]!.data.channel).toMatchObject({ name: 'Paging', secretHints: { routingKey: '…abcd' } });
    expect(audit.map((a) => a.action)).toEqual(['notification_channel.create', 'notification_channel.update', 'notification_channel.delete']);
    expect(audit[1]!.changes).toMatchObject({ before: { name: 'On call', active: true }, after: { name: 'Paging', active: false } });
    for (const text of [res.body, list.body, patched.body, deleted.body, JSON.stringify(events), JSON.stringify(audit)]) {
      expect(text).not.toContain(ROUTING_KEY);
      expect(text).not.toContain(newKey);
    }
  });

  it('generates a webhook signing secret and shows it once; a given one is never echoed', async () => {
    const generated = await create({ kind: 'webhook', name: 'generic', eventTypes: ['*'], config: { url: 'https://93.184.216.34/hooks' } });
    expect(generated.statusCode).toBe(201);
    const { channel, signingSecret } = generated.json();
    expect(signingSecret).toMatch(/^whsec_/);
    expect(channel.secretHints).toEqual({ signingSecret: `…${signingSecret.slice(-4)}` });
    expect((await call('GET', `${base}/${channel.id}`)).body).not.toContain(signingSecret);
    expect((await call('GET', base)).body).not.toContain(signingSecret);
    expect(JSON.stringify(await tracesOf(channel.id))).not.toContain(signingSecret);

    const mine = 'my-own-signing-secret-1234';
    const given = await create({
      kind: 'webhook',
      name: 'mine',
      eventTypes: ['*'],
      config: { url: 'https://93.184.216.34/hooks' },
      secrets: { signingSecret: mine },
    });
    expect(Object.keys(given.json())).toEqual(['channel']);
    expect(given.body).not.toContain(mine);
    // Replacing the secrets without one generates a new secret, shown in that response only.
    const replaced = await call('PATCH', `${base}/${given.json().channel.id}`, { secrets: {} });
    expect(replaced.json().signingSecret).toMatch(/^whsec_/);
  });

  it("stores a kind's parsed config and masks URL secrets", async () => {
    const dd = (
      await create({
        kind: 'datadog',
        name: 'dd',
        eventTypes: ['tenant.*'],
        config: { site: 'DatadogHQ.eu', tags: ['team:iam'] },
        secrets: { apiKey: 'dd-api-key-0123456789' },
      })
    ).json();
    expect(dd.channel).toMatchObject({ config: { site: 'datadoghq.eu', tags: ['team:iam'] }, secretHints: { apiKey: '…6789' } });
    const slack = await create({ kind: 'slack', name: 'chat', eventTypes: ['tenant.*'], secrets: { webhookUrl: SLACK_URL } });
    expect(slack.json().channel).toMatchObject({ config: {}, secretHints: { webhookUrl: 'https://93.184.216.34/services/…slak' } });
    expect(slack.body).not.toContain('XXXXXXXX');
  });

  it.each([
    [{ kind: 'pagerduty', secrets: {} }, 'body.secrets.routingKey', /is required/],
    [{ kind: 'pagerduty', config: { severityMap: { 'tenant.**': 'error' } }, secrets: { routingKey: 'k' } }, 'body.config.severityMap.tenant.**', /event type/],
    [{ kind: 'datadog', config: { site: 'evil.com/path?' }, secrets: { apiKey: 'k' } }, 'body.config.site', /Datadog site/],
    [{ kind: 'datadog', secrets: { apiKey: '   ' } }, 'body.secrets.apiKey', /is required/],
    [{ kind: 'slack', secrets: { webhookUrl: 'not a url' } }, 'body.secrets.webhookUrl', /http\(s\) URL/],
    [{ kind: 'slack', config: { webhookUrl: SLACK_URL }, secrets: { webhookUrl: SLACK_URL } }, 'body.config.webhookUrl', /not a known field/],
    [{ kind: 'teams', secrets: {} }, 'body.secrets.webhookUrl', /is required/],
    [{ kind: 'webhook', config: {} }, 'body.config.url', /is required/],
    [{ kind: 'webhook', config: { url: 'https://93.184.216.34' }, secrets: { signingSecret: 'short' } }, 'body.secrets.signingSecret', /at least 16/],
  ])('refuses %o naming %s', async (payload, path, message) => {
    const res = await create({ name: 'bad', eventTypes: ['*'], ...payload });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'notification_channel.invalid',
      details: expect.arrayContaining([{ path, message: expect.stringMatching(message) }]),
    });
  });

  it.each([
    [{ kind: 'email', secrets: {} }, 'body.kind', /./],
    [{ kind: 'slack', eventTypes: ['tenant.exploded'], secrets: { webhookUrl: SLACK_URL } }, 'body.eventTypes.0', /matches no event type/],
    [{ kind: 'slack', eventTypes: [], secrets: { webhookUrl: SLACK_URL } }, 'body.eventTypes', /at least one/],
    [{ kind: 'slack', environmentId: crypto.randomUUID(), secrets: { webhookUrl: SLACK_URL } }, 'body.environmentId', /not an environment/],
  ])('refuses %o naming %s', async (payload, path, message) => {
    const res = await create({ name: 'bad', eventTypes: ['*'], ...payload });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual(expect.arrayContaining([{ path, message: expect.stringMatching(message) }]));
  });

  it.each([
    [{ kind: 'webhook', config: { url: 'http://127.0.0.1:9/x' } }, 'body.config.url', /loopback/],
    [{ kind: 'slack', secrets: { webhookUrl: 'http://169.254.169.254/services/T/B/secret-token' } }, 'body.secrets.webhookUrl', /metadata/],
    [{ kind: 'teams', secrets: { webhookUrl: 'http://10.0.0.7/webhookb2/secret-token' } }, 'body.secrets.webhookUrl', /private/],
  ])('refuses a private target %o naming %s', async (payload, path, message) => {
    const res = await create({ name: 'ssrf', eventTypes: ['*'], ...payload });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'notification_channel.url_refused', details: [{ path, message: expect.stringMatching(message) }] });
    expect(res.body).not.toContain('secret-token');
  });

  it('refuses a private target on update too', async () => {
    const { channel } = (await create({ kind: 'slack', name: 'chat', eventTypes: ['*'], secrets: { webhookUrl: SLACK_URL } })).json();
    const res = await call('PATCH', `${base}/${channel.id}`, { secrets: { webhookUrl: 'http://127.0.0.1:8080/hook' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual([{ path: 'body.secrets.webhookUrl', message: expect.stringMatching(/loopback/) }]);
  });

  it('needs notification-channels:write to change and :read to look', async () => {
    const readOnly = bearer(await t.token('notification-channels:read'));
    expect((await call('GET', base, undefined, readOnly)).statusCode).toBe(200);
    expect((await call('POST', base, { kind: 'slack', name: 'x', eventTypes: ['*'], secrets: { webhookUrl: SLACK_URL } }, readOnly)).statusCode).toBe(403);
    expect((await call('GET', base, undefined, bearer(await t.token('webhooks:write')))).statusCode).toBe(403);
  });

  it('hides the channels of tenants in other organizations', async () => {
    const other = await otherOrganization(t);
    const theirTenant = (await call('POST', '/v1/tenants', { name: 'theirs' }, bearer(other.token))).json().tenant;
    const theirBase = `/v1/tenants/${theirTenant.id}/notification-channels`;
    const theirs = (
      await call('POST', theirBase, { kind: 'slack', name: 'theirs', eventTypes: ['*'], secrets: { webhookUrl: SLACK_URL } }, bearer(other.token))
    ).json().channel;
    for (const [method, url] of [
      ['GET', theirBase],
      ['GET', `${theirBase}/${theirs.id}`],
      ['GET', `${theirBase}/${theirs.id}/deliveries`],
      ['POST', `${theirBase}/${theirs.id}/test`],
      ['DELETE', `${theirBase}/${theirs.id}`],
      ['GET', `${base}/${theirs.id}`],
      ['POST', `${base}/${theirs.id}/test`],
    ] as const) {
      expect((await call(method, url)).statusCode, `${method} ${url}`).toBe(404);
    }
    expect((await call('PATCH', `${theirBase}/${theirs.id}`, { name: 'mine now' })).statusCode).toBe(404);
    expect((await call('GET', `${theirBase}/${theirs.id}`, undefined, bearer(other.token))).json().channel.name).toBe('theirs');
  });
});
