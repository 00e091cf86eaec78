import { decodeJwt } from 'jose';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { ENGINES, startTestAppWithProcesses, sweepOnce, type TestAppWithProcesses } from '../helpers/processes.ts';

let t: TestAppWithProcesses;
let token: string;
let tenantId: string;
let environmentId: string;
let base: string;
let userId: string;

const POLL = { timeout: 15_000, interval: 100 };
const call = (method: 'GET' | 'POST', url: string, payload?: object) => t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });

async function issue(durationSeconds: number) {
  const res = await call('POST', `${base}/grants`, { userId, reason: 'Support ticket', durationSeconds });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { grant: { id: string; expiresAt: string }; token: string };
}
const grantOf = async (id: string) => (await call('GET', `${base}/grants/${id}`)).json().grant as { status: string };
const processStatus = (id: string) => t.processStatus(`impersonation-expiry:${id}`);
const expiredEvents = async (id: string) =>
  (await tenantEvents(t, tenantId, { environmentId, type: 'impersonation.grant.expired' })).filter((e) => e.subject?.id === id);

describe.each(ENGINES)('impersonation expiry process (%s)', (engine) => {
  beforeAll(async () => {
    t = await startTestAppWithProcesses({ engine });
    token = await t.token();
    tenantId = t.credentials.tenantId;
    environmentId = (await newEnvironments(t, token)).environmentIds[0]!;
    base = `/v1/tenants/${tenantId}/environments/${environmentId}/impersonation`;
    const user = await call('POST', `/v1/tenants/${tenantId}/environments/${environmentId}/directory/users`, { userName: `ada-${engine}@example.com` });
    userId = user.json().user.id;
  });
  afterAll(() => t.close());

  it('marks the grant expired on time, once, even when the engine restarts while it waits', async () => {
    const { grant, token: impersonation } = await issue(3);
    await expect.poll(() => processStatus(grant.id), POLL).toBe('running');
    await t.restartProcesses();
    expect((await grantOf(grant.id)).status).toBe('active');
    await expect.poll(() => processStatus(grant.id), POLL).toBe('completed');

    // The process marked it (the status is no read-time guess): one event and one audit entry, from the system.
    const events = await expiredEvents(grant.id);
    expect(events).toEqual([
      expect.objectContaining({
        actor: { type: 'system', id: 'impersonation-expiry' },
        data: { grant: expect.objectContaining({ id: grant.id, status: 'expired' }) },
      }),
    ]);
    const [entry, ...more] = await auditEntries(t, { tenantId }, { action: 'impersonation.grant.expire', resourceId: grant.id });
    expect(more).toEqual([]);
    expect(Date.parse(entry!.occurredAt)).toBeGreaterThanOrEqual(Date.parse(grant.expiresAt));
    expect((await grantOf(grant.id)).status).toBe('expired');
    expect(decodeJwt(impersonation).exp! * 1000).toBe(Math.floor(Date.parse(grant.expiresAt) / 1000) * 1000);
    expect((await t.app.inject({ method: 'GET', url: '/v1/userinfo', headers: bearer(impersonation) })).statusCode).toBe(401);
  });

  it('a revoke ends the process: the grant stays revoked and never expires', async () => {
    const { grant } = await issue(600);
    await expect.poll(() => processStatus(grant.id), POLL).toBe('running');
    expect((await call('POST', `${base}/grants/${grant.id}/revoke`, {})).statusCode).toBe(200);
    await expect.poll(() => processStatus(grant.id), POLL).toBe('completed');
    expect((await grantOf(grant.id)).status).toBe('revoked');
    expect(await expiredEvents(grant.id)).toEqual([]);
  });

  it('the sweeper starts the process of a grant whose start was lost, which then expires it', async () => {
    await t.processes.stop();
    const { grant } = await issue(2);
    await t.pool.query(sql.unsafe`DELETE FROM process_outbox WHERE process_id = ${`impersonation-expiry:${grant.id}`}`);
    await t.restartProcesses();
    expect(await processStatus(grant.id)).toBe('unknown');

    const { started, logged } = await sweepOnce(t);
    expect(started).toBeGreaterThanOrEqual(1);
    expect(logged.join('\n')).toContain(`impersonation-expiry:${grant.id}`);
    await expect.poll(() => processStatus(grant.id), POLL).toBe('completed');
    expect((await grantOf(grant.id)).status).toBe('expired');
    expect(await expiredEvents(grant.id)).toHaveLength(1);
  });
});
