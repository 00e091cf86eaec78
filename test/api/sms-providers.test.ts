// An environment's SMS providers through the management API: saving per kind (secrets sealed, hints only), ranks,
// validation naming the field, SMS pumping protection on the test send, audit and events, and isolation.
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decrypt } from '../../lib/crypto.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments, otherOrganization } from '../helpers/fixtures.ts';
import { startTwilioFake } from '../helpers/vendor-fakes/sms-twilio.ts';
import type { VendorFake } from '../helpers/vendor-fakes/sms-server.ts';

const ACCOUNT_SID = `AC${'a1'.repeat(16)}`;
const AUTH_TOKEN = 'twilio-auth-token-very-secret-9f3c';
let t: TestApp;
let token: string;
let tenantId: string;
let environmentId: string;
let base: string;
let twilio: VendorFake;
beforeAll(async () => {
  [t, twilio] = await Promise.all([
    startTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' }),
    startTwilioFake({ accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN }),
  ]);
  token = await t.token();
});
// An environment of its own for every test: one test's providers never show in another's list.
beforeEach(async () => {
  const created = await newEnvironments(t, token);
  tenantId = created.tenantId;
  environmentId = created.environmentIds[0]!;
  base = `/v1/tenants/${tenantId}/environments/${environmentId}/sms-providers`;
});
afterAll(() => Promise.all([t.close(), twilio.close()]));

const call = (method: 'GET' | 'PUT' | 'DELETE' | 'POST', url: string, payload?: object, auth = token) =>
  t.app.inject({ method, url, headers: bearer(auth), ...(payload ? { payload } : {}) });
const twilioConfig = (extra: object = {}) => ({ accountSid: ACCOUNT_SID, from: '+14155552671', baseUrl: twilio.url, ...extra });
const saveTwilio = (body: object = {}) => call('PUT', `${base}/twilio`, { config: twilioConfig(), secrets: { authToken: AUTH_TOKEN }, ...body });
const ts = expect.any(String);
const Stored = z.object({ secretsEncrypted: z.string(), config: z.record(z.string(), z.unknown()) });
const stored = (id: string) =>
  t.pool.one(sql.type(Stored)`SELECT secrets_encrypted AS "secretsEncrypted", config FROM environment_sms_providers WHERE id = ${id}`);

describe('SMS providers', () => {
  it('creates a provider with sealed secrets and hints only, updates it keeping omitted secrets, and lists by rank', async () => {
    const created = await saveTwilio();
    expect(created.statusCode).toBe(201);
    const provider = created.json().provider;
    expect(created.json()).toEqual({
      provider: {
        id: expect.any(String),
        environmentId,
        provider: 'twilio',
        active: true,
        rank: 0,
        config: twilioConfig(),
        secretHints: { authToken: '…9f3c' },
        createdAt: ts,
        updatedAt: ts,
      },
    });
    const row = await stored(provider.id);
    expect(row.secretsEncrypted).not.toContain(AUTH_TOKEN);
    expect(JSON.parse(decrypt(t.masterKey, row.secretsEncrypted))).toEqual({ authToken: AUTH_TOKEN });

    const vonage = await call('PUT', `${base}/vonage`, {
      provider: 'vonage',
      config: { from: '+4915123456789' },
      secrets: { apiKey: 'key-1', apiSecret: 'vonage-secret-abcd1234' },
    });
    expect(vonage.statusCode).toBe(201);
    expect(vonage.json().provider).toMatchObject({ rank: 1, secretHints: { apiKey: '…', apiSecret: '…1234' } });

    // An update without secrets keeps them; rank moves it first.
    const updated = await call('PUT', `${base}/vonage`, { rank: 0, active: false });
    expect(updated.statusCode).toBe(200);
    expect(updated.json().provider).toMatchObject({ id: vonage.json().provider.id, rank: 0, active: false, config: { from: '+4915123456789' } });
    const vonageRow = await stored(vonage.json().provider.id);
    expect(JSON.parse(decrypt(t.masterKey, vonageRow.secretsEncrypted))).toEqual({ apiKey: 'key-1', apiSecret: 'vonage-secret-abcd1234' });
    const bumped = await call('PUT', `${base}/twilio`, { rank: 5 });
    expect(bumped.json().provider).toMatchObject({ rank: 5, config: twilioConfig() });

    const listed = await call('GET', base);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().providers.map((p: { provider: string; rank: number }) => [p.provider, p.rank])).toEqual([
      ['vonage', 0],
      ['twilio', 5],
    ]);
    expect(listed.body).not.toContain(AUTH_TOKEN);
    expect(listed.body).not.toContain('vonage-secret-abcd1234');
  });

  it('refuses bad input with a 400 naming the field', async () => {
    const invalid = async (kind: string, body: object) => {
      const res = await call('PUT', `${base}/${kind}`, body);
      expect(res.statusCode, res.body).toBe(400);
      return (res.json().details as { path: string; message: string }[]).map((d) => `${d.path} ${d.message}`);
    };
    expect(await invalid('twilio', { config: twilioConfig() })).toEqual(['body.secrets.authToken is required']);
    expect(await invalid('twilio', { config: { accountSid: ACCOUNT_SID }, secrets: { authToken: 'x' } })).toEqual([
      'body.config.from is required (or messagingServiceSid)',
    ]);
    expect(await invalid('twilio', { config: twilioConfig({ from: '4155552671' }), secrets: { authToken: 'x' } })).toEqual([
      'body.config.from must be a valid phone number in E.164 form, e.g. +14155552671',
    ]);
    expect(await invalid('sns', { config: { region: 'us-east-1', color: 'red' } })).toEqual([
      'body.config.color is not a known field',
      'body.secrets.accessKeyId is required',
      'body.secrets.secretAccessKey is required',
    ]);
    expect(await invalid('vonage', { config: { from: '+4915123456789', allowedCountries: ['XX'] }, secrets: { apiKey: 'k', apiSecret: 's' } })).toEqual([
      'body.config.allowedCountries.0 must be an ISO 3166 alpha-2 country code, e.g. US',
    ]);
    expect(await invalid('twilio', { ...{ config: twilioConfig(), secrets: { authToken: 'x' } }, rank: -1 })).toEqual([expect.stringMatching(/^body\.rank /)]);
    expect(await invalid('twilio', { config: twilioConfig(), secrets: { authToken: 'x' }, rank: 1.5 })).toEqual([expect.stringMatching(/^body\.rank /)]);
    expect(await invalid('twilio', { provider: 'vonage', config: twilioConfig(), secrets: { authToken: 'x' } })).toEqual([
      'body.provider must be twilio, the provider in the path',
    ]);
    const unknown = await call('PUT', `${base}/carrier-pigeon`, { config: {} });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().details[0].path).toBe('params.provider');
    expect((await call('GET', base)).json().providers).toEqual([]);
  });

  it('sends a test SMS, refuses recipients that are not E.164 or outside allowedCountries, and records each change', async () => {
    const { provider } = (await saveTwilio({ config: twilioConfig({ allowedCountries: ['US', 'CA'] }) })).json();
    const sent = await call('POST', `${base}/twilio/test`, { recipient: '+12025550123' });
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json()).toEqual({ success: true, messageId: expect.stringMatching(/^SM[0-9a-f]{32}$/) });

    const german = await call('POST', `${base}/twilio/test`, { recipient: '+4915123456789' });
    expect(german.statusCode).toBe(400);
    expect(german.json()).toMatchObject({
      code: 'sms_provider.invalid',
      details: [{ path: 'body.recipient', message: "is a number in DE, outside the provider's allowedCountries (US, CA)" }],
    });
    const local = await call('POST', `${base}/twilio/test`, { recipient: '2025550123' });
    expect(local.json().details).toEqual([{ path: 'body.recipient', message: 'must be a valid phone number in E.164 form, e.g. +14155552671' }]);
    expect(twilio.received.filter((r) => r.path.includes(ACCOUNT_SID))).toHaveLength(1);
    expect((await call('POST', `${base}/vonage/test`, { recipient: '+12025550123' })).json().code).toBe('sms_provider.not_found');

    expect((await call('DELETE', `${base}/twilio`)).json()).toEqual({ success: true });
    expect((await call('DELETE', `${base}/twilio`)).statusCode).toBe(404);

    const events = (await tenantEvents(t, tenantId, { environmentId })).filter((e) => e.type.startsWith('sms_provider.'));
    expect(events.map((e) => e.type)).toEqual(['sms_provider.saved', 'sms_provider.tested', 'sms_provider.deleted']);
    expect(events[0]!.data).toEqual({ environmentId, created: true, provider });
    expect(events[1]!.data).toMatchObject({ success: true, messageId: sent.json().messageId, error: null, recipientCountry: 'US' });
    const audit = await auditEntries(t, { tenantId }, { resourceId: provider.id });
    expect(audit.map((a) => a.action)).toEqual(['sms_provider.save', 'sms_provider.test', 'sms_provider.delete']);
    expect(JSON.stringify([events, audit])).not.toContain(AUTH_TOKEN);
  });

  it('is not found to another organization, and needs the sms-providers scopes', async () => {
    await saveTwilio();
    const other = await otherOrganization(t);
    expect((await call('GET', base, undefined, other.token)).statusCode).toBe(404);
    expect((await call('PUT', `${base}/twilio`, { rank: 1 }, other.token)).statusCode).toBe(404);
    expect((await call('POST', `${base}/twilio/test`, { recipient: '+12025550123' }, other.token)).statusCode).toBe(404);
    expect((await call('DELETE', `${base}/twilio`, undefined, other.token)).statusCode).toBe(404);

    const reader = await t.token('sms-providers:read');
    expect((await call('GET', base, undefined, reader)).statusCode).toBe(200);
    expect((await call('PUT', `${base}/twilio`, { rank: 1 }, reader)).statusCode).toBe(403);
    expect((await call('GET', base, undefined, await t.token('environments:write'))).statusCode).toBe(403);
  });

  it('documents the SPEC shapes in the OpenAPI document', async () => {
    type Schema = { type?: string; $ref?: string; anyOf?: Schema[]; minimum?: number; properties?: Record<string, Schema>; required?: string[] };
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi' })).json() as { components: { schemas: Record<string, Schema> } };
    // A property as `<types>` plus `?` when it may be absent, e.g. `boolean|null` or `ManagementMeta?`.
    const shape = (name: string) => {
      const schema = doc.components.schemas[name]!;
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([key, value]) => {
          const types = (value.anyOf ?? [value]).flatMap((v) => v.$ref?.replace('#/components/schemas/', '') ?? v.type ?? []);
          return [key, types.join('|') + (schema.required?.includes(key) ? '' : '?')];
        }),
      );
    };
    expect(shape('EnvironmentSmsProvider')).toEqual({
      id: 'string',
      environmentId: 'string',
      provider: 'string',
      active: 'boolean',
      rank: 'integer',
      config: 'object|null',
      secretHints: 'object|null',
      createdAt: 'string',
      updatedAt: 'string',
    });
    expect(shape('EnvironmentSmsProvidersResponse')).toEqual({ providers: 'array|null', meta: 'ManagementMeta?' });
    expect(shape('SaveEnvironmentSmsProviderResponse')).toEqual({ provider: 'EnvironmentSmsProvider|null', meta: 'ManagementMeta?' });
    expect(shape('TestSmsProviderResponse')).toEqual({ success: 'boolean|null', messageId: 'string|null', meta: 'ManagementMeta?' });
    expect(shape('SmsProviderSuccessResponse')).toEqual({ success: 'boolean|null', meta: 'ManagementMeta?' });
    expect(shape('SaveEnvironmentSmsProviderRequest')).toEqual({
      provider: 'string?',
      active: 'boolean?',
      rank: 'integer?',
      config: 'object?',
      secrets: 'object?',
    });
    expect(doc.components.schemas.SaveEnvironmentSmsProviderRequest!.properties!.rank!.minimum).toBe(0);
    expect(shape('TestSmsProviderRequest')).toEqual({ recipient: 'string' });
  });
});
