import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { elevateEnvironment } from '../helpers/elevate.ts';
import { tenantEvents } from '../helpers/events.ts';
import { userPrincipal } from '../helpers/users.ts';

let t: TestApp;
let env: Awaited<ReturnType<typeof elevateEnvironment>>;
/** A token of a directory user of the environment (a PAT), holding elevate:write. */
let userToken: (userName: string) => Promise<{ id: string; token: string }>;

beforeAll(async () => {
  t = await startTestApp();
  env = await elevateEnvironment(t, await t.token());
  userToken = async (userName) => {
    const { user, token } = await userPrincipal(t, {
      environmentId: env.environmentId,
      organizationId: t.credentials.organizationId,
      userName,
      scopes: ['elevate:write'],
    });
    return { id: user.id, token };
  };
});
afterAll(() => t.close());

const ask = (policyId: string, extra: Record<string, unknown> = {}) => env.call('POST', '/requests', { policyId, requesterId: env.users.alice, ...extra });

describe('elevate access requests', () => {
  it('a pending request is approved by its approver: the grant waits for activation; events carry what channels need', async () => {
    const policyId = await env.policy();
    const created = await ask(policyId, { durationSeconds: 600, justification: 'incident 42' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const request = created.body.request;
    expect(request).toMatchObject({ policyId, requesterId: env.users.alice, durationSeconds: 600, state: 'pending', decisions: [], grantId: null });
    expect(created.body.grant).toBeNull();

    const approved = await env.call('POST', `/requests/${request.id}/approve`, { approverId: env.users.bob, comment: 'ok' });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body.request).toMatchObject({ state: 'approved', decisions: [{ approverId: env.users.bob, decision: 'approve', comment: 'ok' }] });
    const grant = approved.body.grant;
    expect(grant).toMatchObject({
      requestId: request.id,
      userId: env.users.alice,
      state: 'approved',
      durationSeconds: 600,
      activatedAt: null,
      expiresAt: null,
    });
    expect(approved.body.request.grantId).toBe(grant.id);

    const again = await env.call('POST', `/requests/${request.id}/deny`, { approverId: env.users.bob });
    expect(again).toMatchObject({ status: 409, body: { code: 'elevate.already_decided', details: [{ path: 'state', message: 'approved' }] } });

    const events = (await tenantEvents(t, env.tenantId, { environmentId: env.environmentId })).filter(
      (e) => e.subject?.id === request.id || e.subject?.id === grant.id,
    );
    expect(events.map((e) => e.type)).toEqual(['elevate.request.created', 'elevate.grant.created', 'elevate.request.approved']);
    expect(events[0]!.data).toMatchObject({
      environmentId: env.environmentId,
      policy: { id: policyId, notificationChannelIds: [], escalationChannelIds: [] },
      requester: { id: env.users.alice, userName: 'alice' },
      request: { id: request.id, durationSeconds: 600, justification: 'incident 42' },
    });
  });

  it('refuses requests that break the policy, naming the rule', async () => {
    const policyId = await env.policy({ requireJustification: true, ticketPattern: '^INC-[0-9]+$', maxDurationSeconds: 600 });
    expect(await ask(policyId, { requesterId: env.users.erin, justification: 'x', ticketId: 'INC-1' })).toMatchObject({
      status: 403,
      body: { code: 'elevate.not_eligible' },
    });
    expect(await ask(policyId, { durationSeconds: 601, justification: 'x', ticketId: 'INC-1' })).toMatchObject({
      status: 400,
      body: { code: 'elevate.duration_exceeds_maximum', details: [{ path: 'body.durationSeconds' }] },
    });
    expect(await ask(policyId, { ticketId: 'INC-1' })).toMatchObject({ status: 400, body: { code: 'elevate.justification_required' } });
    expect(await ask(policyId, { justification: 'x', ticketId: 'JIRA-1' })).toMatchObject({
      status: 400,
      body: { code: 'elevate.ticket_mismatch', details: [{ path: 'body.ticketId' }] },
    });
    expect((await ask(policyId, { justification: 'x', ticketId: 'INC-7' })).status).toBe(201);
    expect(await env.call('POST', '/requests', { policyId })).toMatchObject({ status: 400, body: { details: [{ path: 'body.requesterId' }] } });
    expect(await ask(crypto.randomUUID())).toMatchObject({ status: 400, body: { details: [{ path: 'body.policyId' }] } });
  });

  it('refuses self-approval and non-approvers; needs every required approval; a deny settles at once', async () => {
    const policyId = await env.policy({ approvers: { userIds: [env.users.bob, env.users.alice], groupIds: [env.groups.approvers] }, approvalsRequired: 2 });
    const { id } = (await ask(policyId)).body.request;
    expect(await env.call('POST', `/requests/${id}/approve`, { approverId: env.users.alice })).toMatchObject({
      status: 403,
      body: { code: 'elevate.self_approval' },
    });
    expect(await env.call('POST', `/requests/${id}/approve`, { approverId: env.users.erin })).toMatchObject({
      status: 403,
      body: { code: 'elevate.not_an_approver' },
    });
    const first = await env.call('POST', `/requests/${id}/approve`, { approverId: env.users.bob });
    expect(first.body).toMatchObject({ request: { state: 'pending', decisions: [{ approverId: env.users.bob }] }, grant: null });
    expect(await env.call('POST', `/requests/${id}/approve`, { approverId: env.users.bob })).toMatchObject({
      status: 409,
      body: { code: 'elevate.already_decided' },
    });
    const second = await env.call('POST', `/requests/${id}/approve`, { approverId: env.users.dave }); // through the approvers group
    expect(second.body).toMatchObject({ request: { state: 'approved' }, grant: { state: 'approved' } });

    const denied = (await ask(policyId)).body.request.id;
    const deny = await env.call('POST', `/requests/${denied}/deny`, { approverId: env.users.dave, comment: 'no' });
    expect(deny.body).toMatchObject({ request: { state: 'denied', decisions: [{ decision: 'deny', comment: 'no' }] }, grant: null });
    const list = await env.call('GET', '/requests', undefined, undefined, { state: 'denied', policyId });
    expect(list.body).toMatchObject({ requests: [{ id: denied }], total: 1 });
  });

  it('a directory user asks, decides and cancels as itself only', async () => {
    const alice = await userToken('alice-pat');
    const bob = await userToken('bob-pat');
    const policyId = await env.policy({ eligible: { userIds: [alice.id] }, approvers: { userIds: [bob.id, alice.id] } });
    const mine = await env.call('POST', '/requests', { policyId }, alice.token);
    expect(mine.status, JSON.stringify(mine.body)).toBe(201);
    expect(mine.body.request.requesterId).toBe(alice.id);
    const id = mine.body.request.id;
    expect(await env.call('POST', `/requests/${id}/approve`, {}, alice.token)).toMatchObject({ status: 403, body: { code: 'elevate.self_approval' } });
    expect(await env.call('POST', `/requests/${id}/approve`, { approverId: bob.id }, alice.token)).toMatchObject({
      status: 400,
      body: { details: [{ path: 'body.approverId' }] },
    });
    expect(await env.call('POST', `/requests/${id}/cancel`, {}, bob.token)).toMatchObject({ status: 403, body: { code: 'elevate.not_requester' } });
    expect((await env.call('POST', `/requests/${id}/cancel`, {}, alice.token)).body).toMatchObject({ request: { state: 'cancelled' } });
    expect(await env.call('POST', `/requests/${id}/approve`, {}, bob.token)).toMatchObject({ status: 409, body: { code: 'elevate.already_decided' } });
  });

  it('approves at once when the auto-approval condition holds, and waits for approvers when it does not', async () => {
    const policyId = await env.policy({ autoApprove: 'request.durationSeconds <= 600 && "oncall" in requester.groups && requester.attributes.level >= 2' });
    const quick = await ask(policyId, { durationSeconds: 300 });
    expect(quick.body).toMatchObject({ request: { state: 'approved', autoApproved: true, decisions: [] }, grant: { state: 'approved' } });
    const long = await ask(policyId, { durationSeconds: 1200 });
    expect(long.body).toMatchObject({ request: { state: 'pending', autoApproved: false }, grant: null });
  });
});
