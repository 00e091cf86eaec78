import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { ENGINES, startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';

let t: TestAppWithProcesses;
let pat: string;

const url = (path = '') => `/v1/organizations/${t.credentials.organizationId}/invitations${path}`;
const call = (method: 'POST' | 'DELETE', path: string, payload?: object) =>
  t.app.inject({ method, url: url(path), headers: bearer(pat), ...(payload ? { payload } : {}) });
const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();

async function invite(email: string, expiresInMs: number) {
  const res = await call('POST', '', { email, expiresAt: inMs(expiresInMs) });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().invitation as { id: string; expiresAt: string };
}
/** The stored status: what the process wrote, not the read-time view of a due invitation. */
const storedStatus = (id: string) => t.pool.oneFirst(sql.type(z.object({ status: z.string() }))`SELECT status FROM organization_invitations WHERE id = ${id}`);
// Invitation events belong to no tenant, so no event stream shows them: they are read from the table.
const expiredEvents = (id: string) =>
  t.pool.any(sql.type(z.object({ actor: z.any(), data: z.any() }))`
  SELECT actor, data FROM events WHERE type = 'organization.invitation.expired' AND subject->>'id' = ${id}`);
/** When the process expired the invitation, from its audit entry. */
const expiredAt = async (id: string) => {
  const res = await t.app.inject({
    method: 'GET',
    url: `/v1/organizations/${t.credentials.organizationId}/audit-logs?action=organization.invitation.expire&resourceId=${id}`,
    headers: bearer(pat),
  });
  const entries = res.json().auditLogs as { occurredAt: string }[];
  expect(entries).toHaveLength(1);
  return Date.parse(entries[0]!.occurredAt);
};
const processStatus = (id: string) => t.processStatus(`invitation-expiry:${id}`);
const POLL = { timeout: 15_000, interval: 100 };

describe.each(ENGINES)('invitation expiry process (%s)', (engine) => {
  beforeAll(async () => {
    t = await startTestAppWithProcesses({ engine });
    pat = t.credentials.personalAccessToken;
  });
  afterAll(() => t.close());

  it('expires a pending invitation on its own at expiresAt, with one event from the system', async () => {
    const invitation = await invite('soon@example.com', 1000);
    await expect.poll(() => processStatus(invitation.id), POLL).toBe('running');
    expect(await storedStatus(invitation.id)).toBe('pending');
    await expect.poll(() => storedStatus(invitation.id), POLL).toBe('expired');
    expect(await expiredAt(invitation.id)).toBeGreaterThanOrEqual(Date.parse(invitation.expiresAt));
    const events = await expiredEvents(invitation.id);
    expect(events).toEqual([
      {
        actor: { type: 'system', id: 'invitation-expiry' },
        data: { invitation: expect.objectContaining({ id: invitation.id, status: 'expired', token: null, invitationCode: null }) },
      },
    ]);
    await expect.poll(() => processStatus(invitation.id), POLL).toBe('completed');
  });

  it('a resend pushes the expiry later: still pending after the original time, expired after the new one', async () => {
    const invitation = await invite('later@example.com', 1000);
    await expect.poll(() => processStatus(invitation.id), POLL).toBe('running');
    const resent = await call('POST', `/${invitation.id}/resend`, { expiresAt: inMs(3000) });
    expect(resent.statusCode).toBe(200);
    await expect.poll(() => storedStatus(invitation.id), POLL).toBe('expired');
    // Expired once, and no sooner than the new time: it was still pending at the original one.
    expect(await expiredAt(invitation.id)).toBeGreaterThanOrEqual(Date.parse(resent.json().invitation.expiresAt));
    expect(Date.parse(resent.json().invitation.expiresAt)).toBeGreaterThan(Date.parse(invitation.expiresAt));
    expect(await expiredEvents(invitation.id)).toHaveLength(1);
    await expect.poll(() => processStatus(invitation.id), POLL).toBe('completed');
  });

  it('a revoke stops the process: the invitation stays revoked and never expires', async () => {
    const invitation = await invite('gone@example.com', 1500);
    await expect.poll(() => processStatus(invitation.id), POLL).toBe('running');
    expect((await call('DELETE', `/${invitation.id}`)).statusCode).toBe(200);
    // The process has ended: nothing is left that could expire the invitation.
    await expect.poll(() => processStatus(invitation.id), POLL).toBe('completed');
    expect(await storedStatus(invitation.id)).toBe('revoked');
    expect(await expiredEvents(invitation.id)).toEqual([]);
  });

  it('expires exactly once when the engine restarts while the process waits', async () => {
    const invitation = await invite('restart@example.com', 2500);
    await expect.poll(() => processStatus(invitation.id), POLL).toBe('running');
    await t.restartProcesses();
    expect(await storedStatus(invitation.id)).toBe('pending');
    await expect.poll(() => storedStatus(invitation.id), POLL).toBe('expired');
    await expect.poll(() => processStatus(invitation.id), POLL).toBe('completed'); // nothing is left to run
    expect(await expiredEvents(invitation.id)).toHaveLength(1);
    await expiredAt(invitation.id); // one audit entry
  });
});
