import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { elevateEnvironment, startElevateApp } from '../helpers/elevate.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';

let t: TestApp;
let env: Awaited<ReturnType<typeof elevateEnvironment>>;

beforeAll(async () => ({ t, env } = await startElevateApp()));
afterAll(() => t.close());

const valid = (e = env) => ({
  name: `p-${crypto.randomUUID().slice(0, 8)}`,
  target: { type: 'role', roleId: e.roles.admin, resources: [{ type: 'document', id: 'doc-1' }] },
  eligible: { userIds: [e.users.alice] },
  approvers: { userIds: [e.users.bob], groupIds: [e.groups.approvers] },
  maxDurationSeconds: 3600,
});

describe('elevate policies', () => {
  it('creates, reads, lists, replaces and deletes a policy, with defaults, audit entries and events', async () => {
    const env = await elevateEnvironment(t, await t.token()); // a fresh environment: its whole list and events
    const body = valid(env);
    const created = await env.call('POST', '/policies', body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const policy = created.body.policy;
    expect(policy).toMatchObject({
      name: body.name,
      description: null,
      target: body.target,
      eligible: { userIds: [env.users.alice], groupIds: [] },
      approvers: body.approvers,
      approvalsRequired: 1,
      autoApprove: null,
      maxDurationSeconds: 3600,
      defaultDurationSeconds: 3600,
      requireJustification: false,
      ticketPattern: null,
      requestTtlSeconds: 86400,
      activationWindowSeconds: 86400,
      reapproveExtensions: false,
      notificationChannelIds: [],
      escalationChannelIds: [],
    });
    expect((await env.call('GET', `/policies/${policy.id}`)).body).toEqual({ policy });
    const list = await env.call('GET', '/policies');
    expect(list.body).toMatchObject({ total: 1, hasMore: false, nextCursor: null });
    const replaced = await env.call('PUT', `/policies/${policy.id}`, {
      ...body,
      target: { type: 'group', groupId: env.groups.admins },
      defaultDurationSeconds: 600,
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.policy).toMatchObject({ target: { type: 'group', groupId: env.groups.admins }, defaultDurationSeconds: 600 });
    expect((await env.call('DELETE', `/policies/${policy.id}`)).status).toBe(200);
    expect((await env.call('GET', `/policies/${policy.id}`)).status).toBe(404);
    const types = (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).map((e) => e.type).filter((x) => x.startsWith('elevate.'));
    expect(types).toEqual(['elevate.policy.created', 'elevate.policy.updated', 'elevate.policy.deleted']);
    const actions = (await auditEntries(t, { tenantId: env.tenantId }, { resourceId: policy.id })).map((a) => a.action);
    expect(actions).toEqual(['elevate.policy.create', 'elevate.policy.update', 'elevate.policy.delete']);
  });

  it('refuses an auto-approval condition that does not compile, naming the field with line:column', async () => {
    const res = await env.call('POST', '/policies', { ...valid(), autoApprove: 'request.durationSeconds <= 600 &&\n  nope.x' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'elevate.invalid_condition', details: [{ path: 'body.autoApprove', message: expect.stringMatching(/^2:3: /) }] });
    const bad = await env.call('POST', '/policies', { ...valid(), autoApprove: 'subject.id == "x"' });
    expect(bad.body).toMatchObject({ code: 'elevate.invalid_condition', details: [{ path: 'body.autoApprove' }] });
    const ok = await env.call('POST', '/policies', { ...valid(), autoApprove: 'request.durationSeconds <= 600 && "oncall" in requester.groups' });
    expect(ok.status).toBe(201);
  });

  it('refuses unknown references, catastrophic ticket patterns, a default above the maximum, unknown fields and a duplicate name', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ target: { type: 'role', roleId: crypto.randomUUID() } }, 'body.target.roleId'],
      [{ target: { type: 'group', groupId: crypto.randomUUID() } }, 'body.target.groupId'],
      [{ target: { type: 'role', roleId: env.roles.admin, resources: [{ type: 'nope', id: 'x' }] } }, 'body.target.resources.0.type'],
      [{ eligible: { userIds: [env.users.alice, crypto.randomUUID()] } }, 'body.eligible.userIds.1'],
      [{ approvers: { groupIds: [crypto.randomUUID()] } }, 'body.approvers.groupIds.0'],
      [{ notificationChannelIds: [crypto.randomUUID()] }, 'body.notificationChannelIds.0'],
      [{ ticketPattern: '(?<=a)b' }, 'body.ticketPattern'], // RE2 has no lookbehind; nested quantifiers are fine there (linear time)
      [{ ticketPattern: '(a)\\1' }, 'body.ticketPattern'],
      [{ ticketPattern: '[' }, 'body.ticketPattern'],
      [{ defaultDurationSeconds: 7200 }, 'body.defaultDurationSeconds'],
      [{ approvers: { userIds: [] } }, 'body.approvers'],
      [{ surprise: true }, 'body.surprise'],
    ];
    for (const [change, path] of cases) {
      const res = await env.call('POST', '/policies', { ...valid(), ...change });
      expect(res.status, JSON.stringify(change)).toBe(400);
      expect(res.body.details?.[0]?.path ?? res.body.error, JSON.stringify(change)).toContain(path);
    }
    const body = valid();
    expect((await env.call('POST', '/policies', body)).status).toBe(201);
    expect((await env.call('POST', '/policies', body)).body).toMatchObject({ code: 'elevate.policy_name_taken' });
  });
});
