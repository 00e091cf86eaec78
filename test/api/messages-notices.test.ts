// The invitation mail and the elevate notice go through the same sender: an organization invitation created or
// resent is mailed to its email with its join code (through the operator environment's providers, here the log
// sender), and a pending access request is mailed to its policy's approvers whose email is known.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { elevateEnvironment } from '../helpers/elevate.ts';
import { messagesTo, waitForMessage } from '../helpers/inbox.ts';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
});
afterAll(() => t.close());

describe('notices', () => {
  it('mails an organization invitation with its join code when it is created, and the new code when it is resent', async () => {
    const orgId = t.credentials.organizationId;
    const pat = t.credentials.personalAccessToken;
    const url = `/v1/organizations/${orgId}/invitations`;
    const created = await t.app.inject({ method: 'POST', url, headers: bearer(pat), payload: { email: 'invitee@example.com' } });
    expect(created.statusCode, created.body).toBe(201);
    const { organization, invitation } = created.json();
    const mail = await waitForMessage(t.app, 'invitee@example.com', 'invitation');
    expect(mail.subject).toBe(`You are invited to join ${organization.name}`);
    expect(mail.text).toContain(`with the code ${invitation.invitationCode} before`);
    expect(mail.html).toContain(invitation.invitationCode);

    const resent = await t.app.inject({ method: 'POST', url: `${url}/${invitation.id}/resend`, headers: bearer(pat), payload: {} });
    expect(resent.statusCode, resent.body).toBe(200);
    await expect.poll(() => messagesTo(t.app, 'invitee@example.com').length).toBe(2);
    expect(messagesTo(t.app, 'invitee@example.com')[1]!.text).toContain(resent.json().invitation.invitationCode);
  });

  it('mails a pending access request to its approvers with an email, never to the requester', async () => {
    const env = await elevateEnvironment(t, token);
    const users = `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users`;
    const carol = await t.app.inject({
      method: 'POST',
      url: users,
      headers: bearer(token),
      payload: { userName: 'carol', emails: [{ value: 'Carol@Example.com', type: 'work' }] },
    });
    expect(carol.statusCode, carol.body).toBe(201);
    const policyId = await env.policy({ name: 'Prod admin', approvers: { userIds: [carol.json().user.id, env.users.bob!] } });
    const asked = await env.call('POST', '/requests', { policyId, requesterId: env.users.alice, justification: 'incident <42>' });
    expect(asked.status, JSON.stringify(asked.body)).toBe(201);
    const notice = await waitForMessage(t.app, 'carol@example.com', 'elevate_notice');
    expect(notice.subject).toBe('Access request from alice');
    expect(notice.text).toMatch(/^alice asks for Prod admin: “incident <42>”\. Approve or deny the request before .+ UTC\.$/);
    expect(notice.html).toContain('incident &lt;42&gt;');
    // bob has no email; alice, the requester, is no approver.
    expect(t.app.messages.inbox.messages.filter((m) => m.kind === 'elevate_notice').map((m) => m.to)).toEqual(['carol@example.com']);
  });
});
