// Deprovisioning revokes the access the grant families gave a user: its open elevate grant is revoked by the
// directory-sync process (both engines) and listed in the event's `removed`; the impersonation grant acting as it was
// already revoked by the deactivation itself (so that a reactivation cannot revive it), by whoever deactivated it.
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { elevateEnvironment } from '../helpers/elevate.ts';
import { tenantEvents } from '../helpers/events.ts';
import { ENGINES, startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';

const POLL = { timeout: 30_000, interval: 100 };

describe.each(ENGINES)('deprovisioning of grants (%s)', (engine) => {
  let t: TestAppWithProcesses;
  let token: string;
  let env: Awaited<ReturnType<typeof elevateEnvironment>>;

  beforeAll(async () => {
    t = await startTestAppWithProcesses({ engine });
    token = await t.token();
    env = await elevateEnvironment(t, token);
  });
  afterAll(() => t.close());

  const call = async (method: 'GET' | 'POST', path: string, payload?: object) => {
    const res = await t.app.inject({
      method,
      url: `/v1/tenants/${env.tenantId}/environments/${env.environmentId}${path}`,
      headers: bearer(token),
      ...(payload ? { payload } : {}),
    });
    expect(res.statusCode, res.body).toBeLessThan(300);
    return res.json();
  };

  it('revokes the open elevate grant of a deactivated user; its impersonation grant went with the deactivation', async () => {
    const alice = env.users.alice!;
    const policyId = await env.policy();
    const { request } = (await env.call('POST', '/requests', { policyId, requesterId: alice, durationSeconds: 600 })).body;
    const { grant } = (await env.call('POST', `/requests/${request.id}/approve`, { approverId: env.users.bob })).body;
    expect((await env.call('POST', `/grants/${grant.id}/activate`, {})).status).toBe(200);
    expect((await env.mayDelete()).decision).toBe(true);
    const impersonation = (await call('POST', '/impersonation/grants', { userId: alice, reason: 'Support ticket 42' })).grant;

    await call('POST', `/directory/users/${alice}/deactivate`);

    const deprovisioned = async () => (await tenantEvents(t, env.tenantId, { type: 'directory.user.deprovisioned' })).filter((e) => e.data.userId === alice);
    await expect.poll(deprovisioned, POLL).toHaveLength(1);
    const [event] = await deprovisioned();
    expect(event!.data.removed).toMatchObject({ elevateGrants: [grant.id], impersonationGrants: [] });
    expect((await env.call('GET', `/grants/${grant.id}`)).body.grant).toMatchObject({ state: 'revoked', revokeReason: 'The user was deprovisioned.' });
    expect((await call('GET', `/impersonation/grants/${impersonation.id}`)).grant).toMatchObject({ status: 'revoked' });
    expect((await env.mayDelete()).decision).toBe(false);
    const revokedBy = (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId }))
      .filter((e) => e.type === 'elevate.grant.revoked' || e.type === 'impersonation.grant.revoked')
      .map((e) => [e.type, e.actor]);
    expect(revokedBy.sort()).toEqual([
      ['elevate.grant.revoked', { type: 'system', id: 'directory-sync' }],
      ['impersonation.grant.revoked', { type: 'service_account', id: decodeJwt(token).sub }],
    ]);
  });
});
