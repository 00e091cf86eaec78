// Grants and decisions: an elevate grant counts in AuthZEN decisions exactly while it is active.
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { startElevateApp, type elevateEnvironment } from '../helpers/elevate.ts';
import { tenantEvents } from '../helpers/events.ts';

let t: TestApp;
let env: Awaited<ReturnType<typeof elevateEnvironment>>;

beforeAll(async () => ({ t, env } = await startElevateApp()));
afterAll(() => t.close());

/** An approved grant for alice under a new policy (with `overrides`). */
async function approvedGrant(overrides: Record<string, unknown> = {}, durationSeconds = 600) {
  const policyId = await env.policy(overrides);
  const { id } = (await env.call('POST', '/requests', { policyId, requesterId: env.users.alice, durationSeconds })).body.request;
  const res = await env.call('POST', `/requests/${id}/approve`, { approverId: env.users.bob });
  return res.body.grant as { id: string; activationDeadline: string };
}

describe('elevate grants in decisions', () => {
  it('counts the role only from activation until revocation, naming the grant in the reason', async () => {
    const grant = await approvedGrant();
    expect((await env.mayDelete()).decision).toBe(false);
    const activated = await env.call('POST', `/grants/${grant.id}/activate`, {});
    expect(activated.status, JSON.stringify(activated.body)).toBe(200);
    expect(activated.body.grant).toMatchObject({ state: 'active' });
    const { activatedAt, expiresAt } = activated.body.grant;
    expect(Date.parse(expiresAt) - Date.parse(activatedAt)).toBe(600_000);
    const permit = await env.mayDelete();
    expect(permit).toEqual({
      decision: true,
      context: {
        reason: {
          permitted: true,
          role: 'admin',
          assignedRole: 'admin',
          assignmentId: grant.id,
          grantId: grant.id,
          via: { type: 'user', id: env.users.alice },
          permission: 'document:delete',
          conditions: [],
        },
      },
    });
    expect(await env.call('POST', `/grants/${grant.id}/activate`, {})).toMatchObject({ status: 409, body: { code: 'elevate.grant_not_approved' } });
    const revoked = await env.call('POST', `/grants/${grant.id}/revoke`, { reason: 'done' });
    expect(revoked.body.grant).toMatchObject({ state: 'revoked', revokeReason: 'done' });
    expect((await env.mayDelete()).decision).toBe(false);
    const types = (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter((e) => e.subject?.id === grant.id).map((e) => e.type);
    expect(types).toEqual(['elevate.grant.created', 'elevate.grant.activated', 'elevate.grant.revoked']);
  });

  it('stops counting at expiresAt with no process running and no reload: the engine checks the clock', async () => {
    const grant = await approvedGrant({ maxDurationSeconds: 1 }, 1);
    const { expiresAt } = (await env.call('POST', `/grants/${grant.id}/activate`, {})).body.grant;
    expect((await env.mayDelete()).decision).toBe(true);
    await expect.poll(async () => (await env.mayDelete()).decision, { timeout: 10_000, interval: 50 }).toBe(false);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(expiresAt));
    // No process ran here: the stored row is still active, and reads as expired.
    const stored = await t.pool.oneFirst(sql.type(z.object({ state: z.string() }))`SELECT state FROM elevate_grants WHERE id = ${grant.id}`);
    expect(stored).toBe('active');
    expect((await env.call('GET', `/grants/${grant.id}`)).body.grant.state).toBe('expired');
  });

  it('limits a role to its instances, and a group target makes the user a member while active', async () => {
    const limited = await approvedGrant({ target: { type: 'role', roleId: env.roles.admin, resources: [{ type: 'document', id: 'doc-2' }] } });
    await env.call('POST', `/grants/${limited.id}/activate`, {});
    expect((await env.mayDelete('doc-2')).decision).toBe(true);
    expect((await env.mayDelete('doc-1')).decision).toBe(false);
    await env.call('POST', `/grants/${limited.id}/revoke`, {});

    const read = async () =>
      (
        await env.post('evaluation', {
          subject: { type: 'user', id: env.users.alice },
          action: { name: 'read' },
          resource: { type: 'document', id: 'doc-1' },
          options: { explain: true },
        })
      ).body as { decision: boolean; context: { reason: Record<string, unknown> } };
    const membership = await approvedGrant({ target: { type: 'group', groupId: env.groups.admins } });
    expect((await read()).decision).toBe(false);
    await env.call('POST', `/grants/${membership.id}/activate`, {});
    expect((await read()).context.reason).toMatchObject({ permitted: true, via: { type: 'group', id: env.groups.admins }, grantId: membership.id });
    await env.call('POST', `/grants/${membership.id}/revoke`, {});
    expect((await read()).decision).toBe(false);
  });

  it('activates from a later start, and extends within the maximum or through a new request', async () => {
    const later = await approvedGrant();
    const startAt = new Date(Date.now() + 3_600_000).toISOString();
    const res = await env.call('POST', `/grants/${later.id}/activate`, { startAt });
    expect(res.body.grant).toMatchObject({ state: 'active', activatedAt: startAt });
    expect((await env.mayDelete()).decision).toBe(false); // not yet in force
    expect(await env.call('POST', `/grants/${later.id}/activate`, { startAt: new Date(Date.now() - 60_000).toISOString() })).toMatchObject({ status: 409 });
    await env.call('POST', `/grants/${later.id}/revoke`, {});

    const grant = await approvedGrant({}, 600);
    await env.call('POST', `/grants/${grant.id}/activate`, {});
    const extended = await env.call('POST', `/grants/${grant.id}/extend`, { durationSeconds: 600 });
    expect(extended.body).toMatchObject({ reapprovalRequired: false, grant: { durationSeconds: 1200 } });
    expect(await env.call('POST', `/grants/${grant.id}/extend`, { durationSeconds: 2401 })).toMatchObject({
      status: 400,
      body: { code: 'elevate.duration_exceeds_maximum', details: [{ path: 'body.durationSeconds' }] },
    });
    await env.call('POST', `/grants/${grant.id}/revoke`, {});

    const strict = await approvedGrant({ reapproveExtensions: true }, 600);
    await env.call('POST', `/grants/${strict.id}/activate`, {});
    const pending = await env.call('POST', `/grants/${strict.id}/extend`, { durationSeconds: 300 });
    expect(pending.body).toMatchObject({ reapprovalRequired: true, grant: { durationSeconds: 600 }, request: { state: 'pending', extendsGrantId: strict.id } });
    const approved = await env.call('POST', `/requests/${pending.body.request.id}/approve`, { approverId: env.users.bob });
    expect(approved.body).toMatchObject({ request: { state: 'approved' }, grant: { id: strict.id, durationSeconds: 900 } });
    const grants = await env.call('GET', '/grants', undefined, undefined, { userId: env.users.alice!, state: 'active' });
    expect(grants.body.grants.map((g: { id: string }) => g.id)).toEqual([strict.id]);
    await env.call('POST', `/grants/${strict.id}/revoke`, {});
  });
});
