// Vanity domains through the API (no process runs here: test/processes/vanity-domains.test.ts follows one through
// DNS, ACME and TLS): the records to create, exact shapes, 400 naming the field, 409 for a host already taken,
// foreign tenants 404, events and audit of register, re-check and delete, and the HTTP-01 answers.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAcmeQueries } from '../../db/vanity-domains/acme.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments, otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let token: string;
let tenantId: string;
let environmentId: string;
let base: string;
beforeAll(async () => {
  t = await startTestApp({ VANITY_CNAME_TARGET: 'edge.iam.example.net' });
  token = await t.token();
});
afterAll(() => t.close());
/** An environment of the test's own (the order of tests is shuffled). */
const fresh = async () => {
  ({
    tenantId,
    environmentIds: [environmentId],
  } = (await newEnvironments(t, token)) as { tenantId: string; environmentIds: [string] });
  base = `/v1/tenants/${tenantId}/environments/${environmentId}/vanity-domains`;
};

const call = (method: 'GET' | 'POST' | 'DELETE', path: string, payload?: object, auth = token) =>
  t.app.inject({ method, url: `${base}${path}`, headers: bearer(auth), ...(payload ? { payload } : {}) });
const stamp = expect.stringMatching(/Z$/);
const host = () => `login-${randomUUID().slice(0, 8)}.example.com`;

describe('…/vanity-domains', () => {
  it('registers a host and answers the DNS records to create, then lists, gets, re-checks and deletes it with events and audit', async () => {
    await fresh();
    const hostname = host();
    const created = await call('POST', '', { hostname: `  ${hostname.toUpperCase()}. ` });
    expect(created.statusCode).toBe(201);
    const domain = created.json().domain;
    expect(domain).toEqual({
      id: expect.any(String),
      environmentId,
      hostname,
      status: 'pending_dns',
      failureReason: null,
      dnsRecords: [
        { type: 'CNAME', name: hostname, value: 'edge.iam.example.net', purpose: expect.any(String) },
        { type: 'TXT', name: `_iam-vanity.${hostname}`, value: expect.stringMatching(/^iam-vanity-domain=[\w-]{32}$/), purpose: expect.any(String) },
      ],
      dnsVerifiedAt: null,
      certificate: null,
      issuer: `https://${hostname}/v1/oidc/${environmentId}`,
      createdAt: stamp,
      updatedAt: stamp,
    });
    expect((await call('GET', '')).json()).toEqual({ domains: [domain], total: 1, nextCursor: null, hasMore: false });
    expect((await call('GET', `/${domain.id}`)).json()).toEqual({ domain });

    const rechecked = await call('POST', `/${domain.id}/check`);
    expect(rechecked.statusCode).toBe(200);
    expect(rechecked.json().domain).toMatchObject({ id: domain.id, status: 'pending_dns' });

    const deleted = await call('DELETE', `/${domain.id}`);
    expect(deleted.statusCode).toBe(200);
    expect(deleted.json().domain.id).toBe(domain.id);
    expect((await call('GET', `/${domain.id}`)).statusCode).toBe(404);
    expect((await call('GET', '')).json().domains).toEqual([]);
    expect((await call('DELETE', `/${domain.id}`)).json().code).toBe('vanity_domain.not_found');

    const events = (await tenantEvents(t, tenantId)).filter((e) => e.subject?.id === domain.id);
    expect(events.map((e) => e.type)).toEqual(['vanity_domain.created', 'vanity_domain.rechecked', 'vanity_domain.deleted']);
    expect(events[0]).toMatchObject({ environmentId, data: { domain } });
    const audit = await auditEntries(t, { tenantId }, { resourceId: domain.id });
    expect(audit.map((a) => a.action).sort()).toEqual(['vanity_domain.create', 'vanity_domain.delete', 'vanity_domain.recheck']);
  });

  it('answers 400 naming the field for a bad host or an unknown field, and 409 for a host already registered', async () => {
    await fresh();
    for (const hostname of ['https://login.example.com', 'example.com', '*.example.com', 'login.example.test']) {
      const res = await call('POST', '', { hostname });
      expect(res.statusCode, hostname).toBe(400);
      expect(res.json().details[0].path).toBe('body.hostname');
    }
    const extra = await call('POST', '', { hostname: host(), certificate: 'x' });
    expect(extra.statusCode).toBe(400);
    expect(JSON.stringify(extra.json().details)).toContain('certificate');

    const hostname = host();
    expect((await call('POST', '', { hostname })).statusCode).toBe(201);
    const again = await call('POST', '', { hostname });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'vanity_domain.already_exists' });
  });

  it("answers 404 for another organization's environment and needs the vanity-domains scope", async () => {
    await fresh();
    const theirs = (await otherOrganization(t)).token;
    expect((await call('GET', '', undefined, theirs)).statusCode).toBe(404);
    expect((await call('POST', '', { hostname: host() }, theirs)).statusCode).toBe(404);
    const readOnly = await t.token('vanity-domains:read');
    expect((await call('GET', '', undefined, readOnly)).statusCode).toBe(200);
    expect((await call('POST', '', { hostname: host() }, readOnly)).statusCode).toBe(403);
  });

  it('answers the key authorization of an HTTP-01 challenge in flight as plain text, and 404 for another token', async () => {
    await createAcmeQueries(t.pool).putChallenge('tok-en_1', 'login.example.com', 'tok-en_1.thumbprint');
    const res = await t.app.inject({ method: 'GET', url: '/.well-known/acme-challenge/tok-en_1', headers: { host: 'login.example.com' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toBe('tok-en_1.thumbprint');
    expect((await t.app.inject({ method: 'GET', url: '/.well-known/acme-challenge/other' })).statusCode).toBe(404);
  });
});
