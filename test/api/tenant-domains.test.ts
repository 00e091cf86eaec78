import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let dns: TestDnsServer;
let token: string;
beforeAll(async () => {
  dns = await startDnsServer();
  t = await startTestApp({ DNS_SERVERS: dns.address });
  token = await t.token();
});
afterAll(async () => {
  await t?.close();
  await dns?.close();
});

const domainsOf = (tenantId: string) => `/v1/tenants/${tenantId}/domains`;
const base = () => domainsOf(t.credentials.tenantId);
const inject = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object, auth = token) =>
  t.app.inject({ method, url, headers: bearer(auth), ...(payload ? { payload } : {}) });
const uniqueDomain = () => `acme-${randomUUID().slice(0, 8)}.example.com`;
const add = async (domain = uniqueDomain(), tenantUrl = base(), auth = token) => {
  const res = await inject('POST', tenantUrl, { domain, validationMethod: 'dns_txt' }, auth);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().domain as { id: string; tenantId: string; domain: string; validationSubDomain: string; validationToken: string; verified: boolean };
};
const eventsOf = async (domain: { id: string; tenantId: string }) => (await tenantEvents(t, domain.tenantId)).filter((e) => e.subject?.id === domain.id);
const newTenant = async (auth = token) => (await inject('POST', '/v1/tenants', { name: `t-${randomUUID()}` }, auth)).json().tenant.id as string;

describe('tenant domains', () => {
  it('adds a domain with its TXT challenge, starts its verification process, lists and deletes it', async () => {
    // A tenant of its own, so that the domains other tests add never show in its list.
    const tenantId = await newTenant();
    const base = () => domainsOf(tenantId);
    const res = await inject('POST', base(), { domain: '  Login.ACME-Shapes.Example.COM. ', validationMethod: 'dns_txt' });
    expect(res.statusCode).toBe(201);
    const { domain } = res.json();
    expect(domain).toEqual({
      id: expect.any(String),
      tenantId,
      domain: 'login.acme-shapes.example.com',
      validationMethod: 'dns_txt',
      verified: false,
      validationSubDomain: '_iam-challenge.login.acme-shapes.example.com',
      validationToken: expect.stringMatching(/^iam-domain-verification=[\w-]{32}$/),
      createdAt: expect.any(String),
      validatedAt: null,
      updatedAt: expect.any(String),
    });
    expect((await add(uniqueDomain(), base())).validationToken).not.toBe(domain.validationToken);

    const outbox = await t.pool.any(sql.type(z.object({ kind: z.string(), processId: z.string(), tenantId: z.string(), payload: z.any() }))`
      SELECT kind, process_id AS "processId", tenant_id AS "tenantId", payload FROM process_outbox WHERE process_id = ${`domain-verification:${domain.id}`}`);
    expect(outbox).toEqual([
      {
        kind: 'domain-verification',
        processId: `domain-verification:${domain.id}`,
        tenantId,
        payload: { domainId: domain.id, intervalsMs: [60_000, 300_000, 900_000, 3_600_000, 21_600_000], giveUpAfterMs: 7 * 86_400_000 },
      },
    ]);

    const list = (await inject('GET', `${base()}?limit=1`)).json();
    expect(list.total).toBe(2);
    expect(list.domains).toEqual([domain]);
    const removed = await inject('DELETE', `${base()}/${domain.id}`);
    expect(removed.json()).toEqual({ domain });
    expect((await inject('DELETE', `${base()}/${domain.id}`)).statusCode).toBe(404);
    expect((await inject('POST', `${base()}/${domain.id}/verify`)).statusCode).toBe(404);
    expect((await eventsOf(domain)).map((e) => e.type)).toEqual(['tenant.domain.created', 'tenant.domain.deleted']);
  });

  it.each([
    [{ domain: 'example.com', validationMethod: 'http_file' }, 'body.validationMethod', /must be dns_txt/],
    [{ domain: 'example.com' }, 'body.validationMethod', /dns_txt/],
    [{ validationMethod: 'dns_txt' }, 'body.domain', /./],
    [{ domain: 'https://example.com', validationMethod: 'dns_txt' }, 'body.domain', /without a scheme/],
    [{ domain: '*.example.com', validationMethod: 'dns_txt' }, 'body.domain', /wildcard/],
    [{ domain: 'example.com/login', validationMethod: 'dns_txt' }, 'body.domain', /without a path/],
    [{ domain: 'example', validationMethod: 'dns_txt' }, 'body.domain', /at least two labels/],
    [{ domain: '192.168.1.10', validationMethod: 'dns_txt' }, 'body.domain', /not an IP address/],
    [{ domain: '-bad.example.com', validationMethod: 'dns_txt' }, 'body.domain', /hostname/],
    [{ domain: 'a..example.com', validationMethod: 'dns_txt' }, 'body.domain', /hostname/],
    [{ domain: 'intranet.localhost', validationMethod: 'dns_txt' }, 'body.domain', /reserved/],
    [{ domain: 'bücher.example', validationMethod: 'dns_txt' }, 'body.domain', /punycode/],
    [{ domain: 'example.com', validationMethod: 'dns_txt', verified: true }, 'body.verified', /not a known field/],
  ])('refuses %o naming %s', async (payload, path, message) => {
    const res = await inject('POST', base(), payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().details).toEqual(expect.arrayContaining([{ path, message: expect.stringMatching(message) }]));
  });

  it('refuses the same domain twice in one tenant (409), and allows it in another tenant', async () => {
    const { domain } = await add();
    const again = await inject('POST', base(), { domain: domain.toUpperCase(), validationMethod: 'dns_txt' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'tenant_domain.already_exists', error: expect.stringContaining(domain) });
    await add(domain, domainsOf(await newTenant()));
  });

  it('needs tenants:write to add, and hides the domains of other organizations', async () => {
    const readOnly = await t.token('tenants:read');
    expect((await inject('GET', base(), undefined, readOnly)).statusCode).toBe(200);
    expect((await inject('POST', base(), { domain: uniqueDomain(), validationMethod: 'dns_txt' }, readOnly)).statusCode).toBe(403);

    const other = await otherOrganization(t);
    const theirTenant = await newTenant(other.token);
    const theirs = await add(uniqueDomain(), domainsOf(theirTenant), other.token);
    for (const [method, url] of [
      ['GET', domainsOf(theirTenant)],
      ['POST', `${domainsOf(theirTenant)}/${theirs.id}/verify`],
      ['DELETE', `${domainsOf(theirTenant)}/${theirs.id}`],
    ] as const) {
      expect((await inject(method, url)).statusCode, `${method} ${url}`).toBe(404);
    }
    expect((await inject('POST', `${base()}/${theirs.id}/verify`)).statusCode).toBe(404); // not in our tenant either
    const mine = await add();
    expect((await inject('DELETE', `${base()}/${mine.id}`, undefined, other.token)).statusCode).toBe(404);
  });

  it('verifies on request against DNS: no record, a mismatching record, then the token', async () => {
    const domain = await add();
    const verify = async () => (await inject('POST', `${base()}/${domain.id}/verify`)).json();

    expect(await verify()).toEqual({ success: false, message: `No TXT record found at ${domain.validationSubDomain}.`, domain });
    dns.setTxt(domain.validationSubDomain, 'v=spf1 -all');
    expect(await verify()).toMatchObject({
      success: false,
      message: expect.stringMatching(/does not match the validation token/),
      domain: { verified: false },
    });
    dns.setTxt(domain.validationSubDomain, 'v=spf1 -all', domain.validationToken);
    const verified = await verify();
    expect(verified).toEqual({
      success: true,
      message: expect.stringMatching(/TXT record found/),
      domain: { ...domain, verified: true, validatedAt: expect.any(String), updatedAt: expect.any(String) },
    });
    expect(dns.queries).toContain(domain.validationSubDomain);
    expect(await verify()).toMatchObject({
      success: true,
      message: expect.stringMatching(/is verified/),
      domain: { validatedAt: verified.domain.validatedAt },
    });

    const events = await eventsOf(domain);
    expect(events.map((e) => e.type)).toEqual(['tenant.domain.created', 'tenant.domain.verified']);
    expect(events[1]).toMatchObject({ actor: { type: 'service_account' }, data: { domain: verified.domain } });
  });

  it('lets only one tenant hold a domain verified', async () => {
    const name = uniqueDomain();
    const ours = await add(name);
    dns.setTxt(ours.validationSubDomain, ours.validationToken);
    expect((await inject('POST', `${base()}/${ours.id}/verify`)).json().success).toBe(true);

    const otherTenant = domainsOf(await newTenant());
    const theirs = await add(name, otherTenant);
    dns.setTxt(theirs.validationSubDomain, ours.validationToken, theirs.validationToken);
    const refused = (await inject('POST', `${otherTenant}/${theirs.id}/verify`)).json();
    expect(refused).toEqual({ success: false, message: `The domain ${name} is already verified by another tenant.`, domain: theirs });
    expect((await eventsOf(theirs)).map((e) => e.type)).toEqual(['tenant.domain.created']);

    // Once the holder removes it, the other tenant can prove it.
    await inject('DELETE', `${base()}/${ours.id}`);
    expect((await inject('POST', `${otherTenant}/${theirs.id}/verify`)).json()).toMatchObject({ success: true, domain: { verified: true } });
  });
});
