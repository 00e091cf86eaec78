import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { tenantEvents } from '../helpers/events.ts';
import { ENGINES, startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';

// The give-up time of the processes of most tests here (the restart test has its own, see below).
const GIVE_UP_MS = 8000;

let t: TestAppWithProcesses;
let dns: TestDnsServer;
let token: string;
beforeAll(async () => {
  dns = await startDnsServer();
});
afterAll(async () => {
  await dns?.close();
});

interface Domain {
  id: string;
  domain: string;
  verified: boolean;
  validatedAt: string | null;
  validationSubDomain: string;
  validationToken: string;
}
const base = () => `/v1/tenants/${t.credentials.tenantId}/domains`;
async function addDomain(): Promise<Domain> {
  const res = await t.app.inject({
    method: 'POST',
    url: base(),
    headers: bearer(token),
    payload: { domain: `p-${randomUUID().slice(0, 8)}.example.org`, validationMethod: 'dns_txt' },
  });
  expect(res.statusCode).toBe(201);
  return res.json().domain;
}
const current = async (id: string) =>
  ((await t.app.inject({ method: 'GET', url: `${base()}?limit=200`, headers: bearer(token) })).json().domains as Domain[]).find((d) => d.id === id)!;
const polls = (d: Domain) => dns.queries.filter((q) => q === d.validationSubDomain).length;
const eventsOf = async (id: string, type: string) =>
  (await tenantEvents(t, t.credentials.tenantId, { type })).filter((e) => e.subject?.id === id).map(({ actor, data }) => ({ actor, data }));
const status = (d: Domain) => t.processes.gateway.describe(`domain-verification:${d.id}`);
/** Lets time pass by a measure the processes keep: until the process of a new domain has checked DNS `checks` times. */
async function whileAnotherDomainIsChecked(checks: number) {
  const witness = await addDomain();
  await expect.poll(() => polls(witness), { timeout: 10_000, interval: 20 }).toBeGreaterThanOrEqual(checks);
  expect((await t.app.inject({ method: 'DELETE', url: `${base()}/${witness.id}`, headers: bearer(token) })).statusCode).toBe(200);
}

describe.each(ENGINES)('domain verification process (%s)', (engine) => {
  beforeAll(async () => {
    const env = { DNS_SERVERS: dns.address, DOMAIN_VERIFICATION_INTERVALS: '200ms', DOMAIN_VERIFICATION_GIVE_UP: `${GIVE_UP_MS}ms` };
    t = await startTestAppWithProcesses({ engine, env });
    token = await t.token();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('verifies a domain on its own once the TXT record appears, with one event', async () => {
    const domain = await addDomain();
    await expect.poll(() => polls(domain), { timeout: 10_000, interval: 50 }).toBeGreaterThanOrEqual(3);
    expect((await current(domain.id)).verified).toBe(false);
    dns.setTxt(domain.validationSubDomain, domain.validationToken);
    await expect.poll(async () => (await current(domain.id)).verified, { timeout: 10_000, interval: 50 }).toBe(true);
    expect((await current(domain.id)).validatedAt).toEqual(expect.any(String));
    await expect.poll(async () => (await status(domain)).status, { timeout: 5000 }).toBe('completed');
    const pollsWhenDone = polls(domain);
    await whileAnotherDomainIsChecked(3);
    expect(polls(domain)).toBe(pollsWhenDone); // it stopped polling
    const verified = await eventsOf(domain.id, 'tenant.domain.verified');
    expect(verified).toEqual([{ actor: { type: 'system', id: 'domain-verification' }, data: { domain: await current(domain.id) } }]);
  });

  it('gives up after the give-up time without a record, emitting tenant.domain.verification_failed; a later manual verify still succeeds', async () => {
    const domain = await addDomain();
    const started = Date.now();
    await expect
      .poll(async () => (await eventsOf(domain.id, 'tenant.domain.verification_failed')).length, { timeout: GIVE_UP_MS + 10_000, interval: 100 })
      .toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(GIVE_UP_MS - 500);
    // It kept checking until then (every 200 ms here; Temporal's timers fire on whole seconds, so about 4 checks there).
    expect(polls(domain)).toBeGreaterThanOrEqual(3);
    const [failed] = await eventsOf(domain.id, 'tenant.domain.verification_failed');
    expect(failed!.data).toMatchObject({
      domain: { id: domain.id, verified: false },
      reason: `No TXT record at ${domain.validationSubDomain} matched the validation token within ${GIVE_UP_MS / 1000} seconds.`,
    });
    await expect.poll(async () => (await status(domain)).status, { timeout: 5000 }).toBe('completed');
    expect(await current(domain.id)).toMatchObject({ verified: false, validatedAt: null });

    dns.setTxt(domain.validationSubDomain, domain.validationToken);
    const res = await t.app.inject({ method: 'POST', url: `${base()}/${domain.id}/verify`, headers: bearer(token) });
    expect(res.json()).toMatchObject({ success: true, domain: { verified: true, validatedAt: expect.any(String) } });
  });

  // A restart can hold a process up for longer than GIVE_UP_MS: on Temporal, a workflow task the stopping worker had
  // already taken is handed to the new worker only after the workflow task timeout (10 s), and under load a restart
  // itself takes seconds. So this test runs on an app of its own whose give-up time no restart reaches: with 8 s, the
  // process gave up (verification_failed) before the retried task ran, and the domain was never verified.
  describe('across a restart', () => {
    let outer: TestAppWithProcesses;
    let inner: TestAppWithProcesses | undefined;
    beforeAll(async () => {
      outer = t;
      // One embedded engine per process (DBOS is a singleton): the outer app's processes wait meanwhile.
      await outer.processes.stop();
      const env = { DNS_SERVERS: dns.address, DOMAIN_VERIFICATION_INTERVALS: '200ms', DOMAIN_VERIFICATION_GIVE_UP: '10m' };
      t = inner = await startTestAppWithProcesses({ engine, env });
      token = await t.token();
    });
    afterAll(async () => {
      await inner?.close();
      t = outer;
      await t.restartProcesses();
      token = await t.token();
    });

    it('still verifies exactly once when the engine restarts while the process waits', { timeout: 120_000 }, async () => {
      const domain = await addDomain();
      await expect.poll(() => polls(domain), { timeout: 20_000, interval: 20 }).toBeGreaterThanOrEqual(1);
      await t.restartProcesses(); // in the middle of a sleep between two checks
      dns.setTxt(domain.validationSubDomain, domain.validationToken);
      // On Temporal the next workflow task may wait on the stopped worker's sticky queue for its schedule-to-start
      // timeout (1 s in the tests, test/helpers/processes.ts), or for the workflow task timeout (10 s) when the
      // stopping worker had taken it, before the new worker runs it.
      await expect.poll(async () => (await current(domain.id)).verified, { timeout: 60_000, interval: 50 }).toBe(true);
      await expect.poll(async () => (await status(domain)).status, { timeout: 20_000 }).toBe('completed'); // nothing is left to run
      expect(await eventsOf(domain.id, 'tenant.domain.verified')).toHaveLength(1);
      expect(await eventsOf(domain.id, 'tenant.domain.verification_failed')).toHaveLength(0);
    });
  });

  it('ends when the domain is deleted', async () => {
    const domain = await addDomain();
    await expect.poll(() => polls(domain), { timeout: 10_000, interval: 20 }).toBeGreaterThanOrEqual(1);
    expect((await t.app.inject({ method: 'DELETE', url: `${base()}/${domain.id}`, headers: bearer(token) })).statusCode).toBe(200);
    await expect.poll(async () => (await status(domain)).status, { timeout: 5000 }).toBe('completed');
  });
});
