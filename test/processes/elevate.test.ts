// The elevate processes on both engines: a request expires at its TTL after a reminder; a grant expires on time
// after a restart of the processes while it is active (and decisions deny from then); extend and revoke signals.
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { elevateEnvironment } from '../helpers/elevate.ts';
import { tenantEvents } from '../helpers/events.ts';
import { ENGINES, startTestAppWithProcesses, sweepOnce, type TestAppWithProcesses } from '../helpers/processes.ts';

let t: TestAppWithProcesses;
let env: Awaited<ReturnType<typeof elevateEnvironment>>;
const POLL = { timeout: 20_000, interval: 100 };

const typesOf = async (id: string) =>
  (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.subject?.id === id).map((e) => e.type);

/** An active grant of `durationSeconds` for alice. */
async function activeGrant(durationSeconds: number) {
  const policyId = await env.policy({ maxDurationSeconds: 60 });
  const { id } = (await env.call('POST', '/requests', { policyId, requesterId: env.users.alice, durationSeconds })).body.request;
  const grant = (await env.call('POST', `/requests/${id}/approve`, { approverId: env.users.bob })).body.grant as { id: string };
  const activated = await env.call('POST', `/grants/${grant.id}/activate`, {});
  return activated.body.grant as { id: string; expiresAt: string };
}

describe.each(ENGINES)('elevate processes (%s)', (engine) => {
  beforeAll(async () => {
    t = await startTestAppWithProcesses({ engine });
    env = await elevateEnvironment(t, await t.token());
  });
  afterAll(() => t.close());

  it('reminds approvers halfway, escalates, and expires a request nobody decided at its TTL', async () => {
    const channel = await t.app.inject({
      method: 'POST',
      url: `/v1/tenants/${env.tenantId}/notification-channels`,
      headers: { authorization: `Bearer ${await t.token()}` },
      payload: { kind: 'webhook', name: `c-${engine}`, eventTypes: ['elevate.request.escalated'], config: { url: 'http://127.0.0.1:9/c' } },
    });
    const policyId = await env.policy({ requestTtlSeconds: 4, escalationChannelIds: [channel.json().channel.id] });
    const { id } = (await env.call('POST', '/requests', { policyId, requesterId: env.users.alice })).body.request;
    await expect.poll(() => t.processStatus(`elevate-request:${id}`), POLL).toBe('running');
    await expect.poll(async () => (await env.call('GET', `/requests/${id}`)).body.request.state, POLL).toBe('expired');
    await expect.poll(() => t.processStatus(`elevate-request:${id}`), POLL).toBe('completed');
    expect(await typesOf(id)).toEqual(['elevate.request.created', 'elevate.request.reminded', 'elevate.request.escalated', 'elevate.request.expired']);
  });

  it('expires an active grant on time after the processes restart, and decisions deny from then', async () => {
    const grant = await activeGrant(3);
    await expect.poll(() => t.processStatus(`elevate-grant:${grant.id}`), POLL).toBe('running');
    expect((await env.mayDelete()).decision).toBe(true);
    await t.restartProcesses();
    await expect.poll(async () => (await env.mayDelete()).decision, POLL).toBe(false);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(grant.expiresAt));
    await expect.poll(() => typesOf(grant.id), POLL).toEqual(['elevate.grant.created', 'elevate.grant.activated', 'elevate.grant.expired']);
    await expect.poll(() => t.processStatus(`elevate-grant:${grant.id}`), POLL).toBe('completed');
  });

  it('an extension moves the end (signal); a revoke ends the process', async () => {
    const grant = await activeGrant(2);
    await expect.poll(() => t.processStatus(`elevate-grant:${grant.id}`), POLL).toBe('running');
    const extended = (await env.call('POST', `/grants/${grant.id}/extend`, { durationSeconds: 2 })).body.grant as { expiresAt: string };
    await expect.poll(() => typesOf(grant.id), POLL).toContain('elevate.grant.expired');
    const events = await tenantEvents(t, env.tenantId, { environmentId: env.environmentId, type: 'elevate.grant.expired' });
    const expiredAt = Date.parse(events.find((e) => e.subject?.id === grant.id)!.occurredAt);
    expect(expiredAt).toBeGreaterThanOrEqual(Date.parse(extended.expiresAt));

    const revoked = await activeGrant(30);
    await expect.poll(() => t.processStatus(`elevate-grant:${revoked.id}`), POLL).toBe('running');
    await env.call('POST', `/grants/${revoked.id}/revoke`, {});
    await expect.poll(() => t.processStatus(`elevate-grant:${revoked.id}`), POLL).toBe('completed');
    expect(await typesOf(revoked.id)).toEqual(['elevate.grant.created', 'elevate.grant.activated', 'elevate.grant.revoked']);
  });

  it('the sweeper gives a pending request and an open grant whose starts were lost a process', async () => {
    await t.processes.stop();
    const policyId = await env.policy();
    const pending = (await env.call('POST', '/requests', { policyId, requesterId: env.users.alice })).body.request.id as string;
    const approved = (await env.call('POST', '/requests', { policyId, requesterId: env.users.alice })).body.request.id as string;
    const grant = (await env.call('POST', `/requests/${approved}/approve`, { approverId: env.users.bob })).body.grant.id as string;
    await t.pool.query(
      sql.unsafe`DELETE FROM process_outbox WHERE process_id IN (${`elevate-request:${pending}`}, ${`elevate-request:${approved}`}, ${`elevate-grant:${grant}`})`,
    );
    await t.restartProcesses();
    expect(await t.processStatus(`elevate-request:${pending}`)).toBe('unknown');
    await sweepOnce(t);
    await expect.poll(() => t.processStatus(`elevate-request:${pending}`), POLL).toBe('running');
    await expect.poll(() => t.processStatus(`elevate-grant:${grant}`), POLL).toBe('running');
    expect(await t.processStatus(`elevate-request:${approved}`)).toBe('unknown'); // settled: nothing to run
  });
});
