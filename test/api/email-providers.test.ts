// An environment's email providers: save (create or update), list, activate, delete; secrets sealed and shown only as
// hints; each kind's config and secrets validated naming the field; audit entries and events; other organizations 404.
import { sql } from 'slonik';
import { describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { environmentPerTest } from '../helpers/environment-per-test.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';

const ctx = environmentPerTest();
const KEY = 're_live_0123456789abcdefWXYZ';
const NEW_KEY = 're_live_9876543210fedcbaQRST';
const FROM = 'noreply@example.com';

const call = async (method: 'GET' | 'PUT' | 'POST' | 'DELETE', path: string, payload?: object, token = ctx.token) =>
  ctx.t.app.inject({ method, url: `${ctx.base}/email-providers${path}`, headers: bearer(token), ...(payload ? { payload } : {}) });
const save = (provider: string, body: object, token?: string) => call('PUT', `/${provider}`, { provider, ...body }, token);
const invalid = (...details: { path: string; message: string }[]) => ({
  error: `Invalid request: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}.`,
  code: 'email_provider.invalid',
  requestId: expect.any(String),
  details,
});
const eventsOf = async (type: string) => (await tenantEvents(ctx.t, ctx.tenantId, { type })).filter((e) => e.environmentId === ctx.environmentId);

describe('email providers', () => {
  it('creates a provider with sealed secrets, updates it keeping or replacing them, and never returns or records a secret', async () => {
    const created = await save('resend', { config: { from: FROM }, secrets: { apiKey: KEY } });
    expect(created.statusCode, created.body).toBe(200);
    const { provider } = created.json();
    expect(created.json()).toEqual({
      provider: {
        id: expect.any(String),
        environmentId: ctx.environmentId,
        provider: 'resend',
        active: false,
        config: { from: FROM },
        secretHints: { apiKey: '…WXYZ' },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    const list = await call('GET', '');
    expect(list.json()).toEqual({ providers: [provider] });

    // No secrets: the stored ones are kept; the config given replaces the whole config.
    const kept = await save('resend', { config: { from: 'hello@example.com', replyTo: 'help@example.com' } });
    expect(kept.json().provider).toEqual({ ...provider, config: { from: 'hello@example.com', replyTo: 'help@example.com' }, updatedAt: expect.any(String) });
    const replaced = await save('resend', { secrets: { apiKey: NEW_KEY } });
    expect(replaced.json().provider).toMatchObject({ id: provider.id, config: { from: 'hello@example.com' }, secretHints: { apiKey: '…QRST' } });

    const events = await eventsOf('email_provider.saved');
    expect(events.map((e) => (e.data.provider as { secretHints: object }).secretHints)).toEqual([
      { apiKey: '…WXYZ' },
      { apiKey: '…WXYZ' },
      { apiKey: '…QRST' },
    ]);
    const audit = await auditEntries(ctx.t, { tenantId: ctx.tenantId }, { resourceId: provider.id });
    expect(audit.map((a) => a.action)).toEqual(['email_provider.save', 'email_provider.save', 'email_provider.save']);
    expect(audit[1]!.changes?.after).toMatchObject({ config: { from: 'hello@example.com' } });
    const stored = await ctx.t.pool.oneFirst(sql.unsafe`SELECT secrets_encrypted FROM email_providers WHERE id = ${provider.id}`);
    expect(stored).toMatch(/\S{40,}/);
    for (const text of [created.body, list.body, kept.body, replaced.body, JSON.stringify(events), JSON.stringify(audit), JSON.stringify(stored)]) {
      expect(text).not.toContain(KEY);
      expect(text).not.toContain(NEW_KEY);
    }
  });

  it('answers 400 naming each field: missing secrets on a first save, a config the vendor would refuse, a kind it does not know', async () => {
    expect((await save('sendgrid', { config: { from: FROM } })).json()).toEqual(invalid({ path: 'body.secrets.apiKey', message: 'is required' }));
    expect((await save('ses', { config: { from: FROM, region: 'eu-west-1' }, secrets: { accessKeyId: 'AKIAIOSFODNN7EXAMPLE' } })).json()).toEqual(
      invalid({ path: 'body.secrets.secretAccessKey', message: 'is required' }),
    );
    expect((await save('postmark', { secrets: { serverToken: KEY } })).json()).toEqual(invalid({ path: 'body.config', message: 'is required' }));
    expect((await save('ses', { config: { from: 'nobody', region: 'Europe' }, secrets: { accessKeyId: 'a', secretAccessKey: 'b' } })).json()).toEqual(
      invalid(
        { path: 'body.config.from', message: 'must be an email address' },
        { path: 'body.config.region', message: 'must be an AWS region such as `eu-west-1`' },
      ),
    );
    const smtp = await save('smtp', { config: { host: 'smtp example', port: 70000, from: FROM, tls: true }, secrets: { username: 'u', password: 'p' } });
    expect(smtp.json().details).toEqual([
      { path: 'body.config.host', message: 'must be a host name or an IPv4 address' },
      { path: 'body.config.port', message: 'Too big: expected number to be <=65535' },
      { path: 'body.config.tls', message: 'is not a known field' },
    ]);
    expect((await save('resend', { config: { from: FROM, baseUrl: 'ftp://mail.example.com' }, secrets: { apiKey: KEY } })).json()).toEqual(
      invalid({ path: 'body.config.baseUrl', message: 'must be an http(s) URL' }),
    );
    const refused = await save('resend', { config: { from: FROM, baseUrl: 'http://127.0.0.1:9' }, secrets: { apiKey: KEY } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'email_provider.url_refused', details: [{ path: 'body.config.baseUrl' }] });
    expect((await call('PUT', '/resend', { provider: 'sendgrid', config: { from: FROM }, secrets: { apiKey: KEY } })).json()).toEqual(
      invalid({ path: 'body.provider', message: 'must be the provider of the path (resend)' }),
    );
    const unknown = await save('mailgun', { config: { from: FROM }, secrets: { apiKey: KEY } });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json()).toMatchObject({ code: 'request.invalid', details: [{ path: 'params.provider' }] });
    expect((await call('GET', '')).json()).toEqual({ providers: [] });
  });

  it('keeps at most one provider active: activating one deactivates the other, with email_provider.activated', async () => {
    const resend = (await save('resend', { active: true, config: { from: FROM }, secrets: { apiKey: KEY } })).json().provider;
    expect(resend.active).toBe(true);
    await save('smtp', { config: { host: '93.184.216.34', port: 587, from: FROM }, secrets: { username: 'mailer', password: 'smtp-password-0123' } });
    const activated = await call('POST', '/smtp/activate');
    expect(activated.statusCode).toBe(200);
    expect(activated.json().provider).toMatchObject({
      provider: 'smtp',
      active: true,
      config: { host: '93.184.216.34', port: 587, secure: false, requireTls: true, from: FROM },
      secretHints: { username: '…', password: '…0123' },
    });
    expect((await call('GET', '')).json().providers.map((p: { provider: string; active: boolean }) => [p.provider, p.active])).toEqual([
      ['resend', false],
      ['smtp', true],
    ]);
    expect((await call('POST', '/smtp/activate')).json().provider.active).toBe(true);
    const events = await eventsOf('email_provider.activated');
    expect(events.map((e) => [(e.data.provider as { provider: string }).provider, e.data.deactivated])).toEqual([
      ['resend', null],
      ['smtp', 'resend'],
    ]);
    expect((await save('smtp', { active: false })).json().provider.active).toBe(false);
    expect((await call('GET', '')).json().providers.filter((p: { active: boolean }) => p.active)).toEqual([]);
  });

  it('deletes a provider with email_provider.deleted; afterwards it is 404 email_provider.not_found', async () => {
    const { provider } = (await save('postmark', { config: { from: FROM }, secrets: { serverToken: KEY } })).json();
    const deleted = await call('DELETE', '/postmark');
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json()).toEqual({ success: true });
    const notFound = { error: 'No email provider with id postmark.', code: 'email_provider.not_found', requestId: expect.any(String) };
    expect((await call('DELETE', '/postmark')).json()).toEqual(notFound);
    expect((await call('POST', '/postmark/activate')).json()).toEqual(notFound);
    expect((await call('POST', '/test', { provider: 'postmark', recipient: 'ada@example.org' })).json()).toEqual(notFound);
    const [event] = await eventsOf('email_provider.deleted');
    expect(event!.data.provider).toEqual(provider);
    expect((await auditEntries(ctx.t, { tenantId: ctx.tenantId }, { resourceId: provider.id })).map((a) => a.action)).toEqual([
      'email_provider.save',
      'email_provider.delete',
    ]);
  });

  it('answers 404 to another organization and 403 to a token without email-providers:write', async () => {
    await save('resend', { config: { from: FROM }, secrets: { apiKey: KEY } });
    const { token } = await otherOrganization(ctx.t);
    for (const res of [await call('GET', '', undefined, token), await save('resend', { config: { from: FROM } }, token)]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('tenant.not_found');
    }
    const reader = await ctx.t.token('email-providers:read');
    expect((await call('GET', '', undefined, reader)).json().providers).toHaveLength(1);
    expect((await save('resend', { active: true }, reader)).statusCode).toBe(403);
    expect((await call('POST', '/resend/activate', undefined, reader)).statusCode).toBe(403);
  });
});
