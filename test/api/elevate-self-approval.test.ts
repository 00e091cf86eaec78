// Nobody approves itself: requesting and administering policies are separate scopes, a requester who changed a
// policy (or could change it) is never auto-approved by it, a user of one environment is no operator of another,
// and a policy only names notification channels of its own environment (or of the whole tenant).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { elevateEnvironment } from '../helpers/elevate.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { userPrincipal } from '../helpers/users.ts';

let t: TestApp;
let token: string;
let env: Awaited<ReturnType<typeof elevateEnvironment>>;
let other: Awaited<ReturnType<typeof elevateEnvironment>>;

/** A directory user of `e` with a PAT holding `scopes`, a member of the bootstrap organization (so it reaches the tenant). */
const userOf = async (e: { environmentId: string }, scopes: string[]) => {
  const { user, token: pat } = await userPrincipal(t, {
    environmentId: e.environmentId,
    organizationId: t.credentials.organizationId,
    userName: `u-${crypto.randomUUID().slice(0, 8)}`,
    scopes,
  });
  return { id: user.id, token: pat };
};

const policyBody = (e: typeof env, overrides: Record<string, unknown> = {}) => ({
  name: `p-${crypto.randomUUID().slice(0, 8)}`,
  target: { type: 'role', roleId: e.roles.admin },
  eligible: { groupIds: [e.groups.oncall] },
  approvers: { userIds: [e.users.bob] },
  maxDurationSeconds: 3600,
  ...overrides,
});

beforeAll(async () => {
  t = await startTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
  token = await t.token();
  env = await elevateEnvironment(t, token);
  // A second environment of the same tenant (the bootstrap tenant, where newEnvironments makes projects).
  const { tenantId, environmentIds } = await newEnvironments(t, token);
  other = await elevateEnvironment(t, token, { tenantId, environmentId: environmentIds[0]! });
});
afterAll(() => t?.close());

describe('elevate: requesting and administering policies are different scopes', () => {
  it('a requester (elevate:write) reads policies but cannot create, replace or delete one', async () => {
    const requester = await userOf(env, ['elevate:write']);
    const policyId = await env.policy();
    expect((await env.call('GET', '/policies', undefined, requester.token)).status).toBe(200);
    expect((await env.call('GET', `/policies/${policyId}`, undefined, requester.token)).status).toBe(200);
    const insufficient = { status: 403, body: { code: 'auth.insufficient_scope', error: expect.stringContaining('elevate-policies:write') } };
    expect(await env.call('POST', '/policies', policyBody(env, { autoApprove: 'true' }), requester.token)).toMatchObject(insufficient);
    expect(await env.call('PUT', `/policies/${policyId}`, policyBody(env, { autoApprove: 'true' }), requester.token)).toMatchObject(insufficient);
    expect(await env.call('DELETE', `/policies/${policyId}`, undefined, requester.token)).toMatchObject(insufficient);
  });

  it('elevate-policies:write administers policies (and reads them), not requests; `*` does both', async () => {
    const admin = await userOf(env, ['elevate-policies:write']);
    const created = await env.call('POST', '/policies', policyBody(env), admin.token);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await env.call('GET', '/policies', undefined, admin.token)).status).toBe(200);
    expect(await env.call('POST', '/requests', { policyId: created.body.policy.id, requesterId: env.users.alice }, admin.token)).toMatchObject({
      status: 403,
      body: { code: 'auth.insufficient_scope' },
    });
    expect((await env.call('POST', '/requests', { policyId: created.body.policy.id, requesterId: env.users.alice })).status).toBe(201);
  });
});

describe('elevate: a requester never has its own request auto-approved by a policy it changed or may change', () => {
  it('the user who created or replaced an auto-approving policy waits for approvers; other requesters are approved at once', async () => {
    const both = ['elevate:write', 'elevate-policies:write'];
    const author = await userOf(env, both);
    const created = await env.call(
      'POST',
      '/policies',
      policyBody(env, { eligible: { groupIds: [env.groups.oncall], userIds: [author.id] }, autoApprove: 'true' }),
      author.token,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const policyId = created.body.policy.id;

    const own = await env.call('POST', '/requests', { policyId }, author.token);
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    expect(own.body).toMatchObject({ request: { state: 'pending', autoApproved: false }, grant: null });
    // On its behalf, by an operator: still its own request.
    const onBehalf = await env.call('POST', '/requests', { policyId, requesterId: author.id });
    expect(onBehalf.body).toMatchObject({ request: { state: 'pending', autoApproved: false } });
    // Anyone else eligible is approved by the condition.
    const alice = await env.call('POST', '/requests', { policyId, requesterId: env.users.alice });
    expect(alice.body).toMatchObject({ request: { state: 'approved', autoApproved: true } });

    // A user who only replaced the policy (an operator created it) is not auto-approved either.
    const editor = await userOf(env, both);
    const byOperator = await env.policy({ eligible: { groupIds: [env.groups.oncall], userIds: [editor.id] }, autoApprove: 'true' });
    const replaced = await env.call(
      'PUT',
      `/policies/${byOperator}`,
      policyBody(env, { name: `r-${byOperator.slice(0, 8)}`, eligible: { groupIds: [env.groups.oncall], userIds: [editor.id] }, autoApprove: 'true' }),
      editor.token,
    );
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    const mine = await env.call('POST', '/requests', { policyId: byOperator, requesterId: editor.id });
    expect(mine.body).toMatchObject({ request: { state: 'pending', autoApproved: false } });
  });

  it('a user whose own token may administer policies is not auto-approved for itself, even by a policy it never touched', async () => {
    const admin = await userOf(env, ['elevate:write', 'elevate-policies:write']);
    const policyId = await env.policy({ eligible: { userIds: [admin.id] }, autoApprove: 'true' });
    expect((await env.call('POST', '/requests', { policyId }, admin.token)).body).toMatchObject({ request: { state: 'pending', autoApproved: false } });
    const requester = await userOf(env, ['elevate:write']);
    const other = await env.policy({ eligible: { userIds: [requester.id] }, autoApprove: 'true' });
    expect((await env.call('POST', '/requests', { policyId: other }, requester.token)).body).toMatchObject({
      request: { state: 'approved', autoApproved: true },
    });
  });

  it('an approver never approves its own request, even as the only approver named', async () => {
    const policyId = await env.policy({ approvers: { userIds: [env.users.alice] } });
    const { id } = (await env.call('POST', '/requests', { policyId, requesterId: env.users.alice })).body.request;
    expect(await env.call('POST', `/requests/${id}/approve`, { approverId: env.users.alice })).toMatchObject({
      status: 403,
      body: { code: 'elevate.self_approval' },
    });
  });
});

describe('elevate: a user of one environment is no operator in another environment of the tenant', () => {
  it('refuses requests, decisions, cancellations and grant changes on behalf of others', async () => {
    const outsider = await userOf(env, ['elevate:write']);
    const policyId = await other.policy();
    const refused = { status: 403, body: { code: 'elevate.not_an_operator' } };
    expect(await other.call('POST', '/requests', { policyId, requesterId: other.users.alice }, outsider.token)).toMatchObject(refused);
    const { id } = (await other.call('POST', '/requests', { policyId, requesterId: other.users.alice })).body.request;
    expect(await other.call('POST', `/requests/${id}/approve`, { approverId: other.users.bob }, outsider.token)).toMatchObject(refused);
    expect(await other.call('POST', `/requests/${id}/deny`, { approverId: other.users.bob }, outsider.token)).toMatchObject(refused);
    expect(await other.call('POST', `/requests/${id}/cancel`, {}, outsider.token)).toMatchObject(refused);
    const approved = await other.call('POST', `/requests/${id}/approve`, { approverId: other.users.bob });
    const grantId = approved.body.grant.id;
    expect(await other.call('POST', `/grants/${grantId}/activate`, {}, outsider.token)).toMatchObject(refused);
    expect(await other.call('POST', `/grants/${grantId}/revoke`, {}, outsider.token)).toMatchObject(refused);
    expect((await other.call('GET', `/requests/${id}`)).body.request).toMatchObject({ state: 'approved', decisions: [{ approverId: other.users.bob }] });
  });

  it('an operator (a user of the operators environment) still acts on behalf of others', async () => {
    const { token: operator } = await userPrincipal(t, { scopes: ['elevate:write'], organizationId: t.credentials.organizationId });
    const policyId = await other.policy();
    const created = await other.call('POST', '/requests', { policyId, requesterId: other.users.alice }, operator);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const approved = await other.call('POST', `/requests/${created.body.request.id}/approve`, { approverId: other.users.bob }, operator);
    expect(approved.body).toMatchObject({ request: { state: 'approved' } });
  });
});

describe('elevate: a policy names only channels of its environment or of the whole tenant', () => {
  it("refuses another environment's channel with a 400 naming the field", async () => {
    const channel = async (environmentId: string | undefined) => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/v1/tenants/${env.tenantId}/notification-channels`,
        headers: bearer(token),
        payload: {
          kind: 'slack',
          name: `c-${crypto.randomUUID().slice(0, 8)}`,
          eventTypes: ['tenant.deleted'],
          ...(environmentId ? { environmentId } : {}),
          secrets: { webhookUrl: 'http://127.0.0.1:9/services/T0/B0/X', signingSecret: '8f742231b10e8888abcd99yyyzzz85a5' },
        },
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json().channel.id as string;
    };
    const elsewhere = await channel(other.environmentId);
    const here = await channel(env.environmentId);
    const tenantWide = await channel(undefined);
    for (const field of ['notificationChannelIds', 'escalationChannelIds']) {
      const res = await env.call('POST', '/policies', policyBody(env, { [field]: [here, elsewhere] }));
      expect(res, field).toMatchObject({ status: 400, body: { details: [{ path: `body.${field}.1` }] } });
    }
    const ok = await env.call('POST', '/policies', policyBody(env, { notificationChannelIds: [here, tenantWide], escalationChannelIds: [tenantWide] }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const policyId = ok.body.policy.id;
    const replaced = await env.call('PUT', `/policies/${policyId}`, policyBody(env, { escalationChannelIds: [elsewhere] }));
    expect(replaced).toMatchObject({ status: 400, body: { details: [{ path: 'body.escalationChannelIds.0' }] } });
  });
});
