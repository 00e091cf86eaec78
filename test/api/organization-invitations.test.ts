import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';
import { userPrincipal, verifyEmails } from '../helpers/users.ts';

let t: TestApp;
let pat: string; // the bootstrap operator user: owner of the default organization, scope *
let orgId: string;
beforeAll(async () => {
  t = await startTestApp();
  pat = t.credentials.personalAccessToken;
  orgId = t.credentials.organizationId;
});
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (token: string, method: Method, url: string, payload?: object) =>
  t.app.inject({ method, url: `/v1${url}`, headers: bearer(token), ...(payload ? { payload } : {}) });
const invitations = `/organizations/${'{org}'}/invitations`;
const inv = (path = '', organizationId = orgId) => `${invitations.replace('{org}', organizationId)}${path}`;

const admin = () => ({ id: t.credentials.userId, displayName: 'Administrator', emails: ['admin@localhost'] });
interface Invitation {
  id: string;
  email: string;
  token: string | null;
  invitationCode: string | null;
  expiresAt: string;
  status: string;
}

async function invite(email: string, extra: object = {}, organizationId = orgId) {
  const res = await call(pat, 'POST', inv('', organizationId), { email, ...extra });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().invitation as Invitation;
}
// Invitation and member events belong to no tenant, so no event stream shows them: they are read from the table.
const Row = z.object({ type: z.string(), data: z.any(), actor: z.any() });
const eventsAbout = (id: string) => t.pool.any(sql.type(Row)`SELECT type, data, actor FROM events WHERE subject->>'id' = ${id} ORDER BY sequence`);
const Outbox = z.object({ action: z.string(), kind: z.string().nullable(), topic: z.string().nullable(), payload: z.any() });
const outboxOf = (id: string) =>
  t.pool.any(sql.type(Outbox)`
  SELECT action, kind, topic, payload FROM process_outbox WHERE process_id = ${`invitation-expiry:${id}`} ORDER BY id`);
/** Whether a secret of the invitation shows in any event, or in the audit log of its organization. */
const secretsLeak = async (invitation: Invitation, organizationId = orgId) => {
  const events = await t.pool.oneFirst(sql.type(z.object({ text: z.string() }))`SELECT coalesce(string_agg(data::text, ' '), '') AS text FROM events`);
  const audit = await auditEntries(t, { organizationId }, {}, pat);
  expect(audit.map((a) => a.resource.id)).toContain(invitation.id);
  const text = events + JSON.stringify(audit);
  return [invitation.token, invitation.invitationCode].some((s) => s && text.includes(s));
};

describe('organization invitations', () => {
  it('creates an invitation: token and join code shown once, expiry process started with it, no secret in events or audit', async () => {
    // An organization of its own, so that the invitations other tests send never show in its list.
    const created = await call(pat, 'POST', '/organizations', { name: 'Inviting', tenantIds: [t.credentials.tenantId] });
    expect(created.statusCode).toBe(201);
    const orgId = created.json().organization.id as string;
    const res = await call(pat, 'POST', inv('', orgId), {
      email: 'ada@example.com',
      role: 'admin',
      message: 'Welcome',
      tenantAccess: [t.credentials.tenantId],
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    const expiresAt = Date.parse(body.invitation.expiresAt);
    expect(expiresAt - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(body).toEqual({
      organization: expect.objectContaining({ id: orgId, name: 'Inviting' }),
      invitation: {
        id: expect.any(String),
        organizationId: orgId,
        email: 'ada@example.com',
        role: 'admin',
        invitedBy: t.credentials.userId,
        token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        invitationCode: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/),
        expiresAt: expect.any(String),
        acceptedAt: null,
        status: 'pending',
        message: 'Welcome',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        tenantAccess: [t.credentials.tenantId],
        inviter: admin(),
      },
    });
    const invitation = body.invitation as Invitation;
    const list = await call(pat, 'GET', inv('', orgId));
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({
      organization: body.organization,
      invitations: [{ ...invitation, token: null, invitationCode: null }],
      total: 1,
      nextCursor: null,
      hasMore: false,
    });

    expect(await outboxOf(invitation.id)).toEqual([
      { action: 'start', kind: 'invitation-expiry', topic: null, payload: { invitationId: invitation.id, expiresAt } },
    ]);
    const [event] = await eventsAbout(invitation.id);
    expect(event).toEqual({
      type: 'organization.invitation.created',
      data: { invitation: { ...invitation, token: null, invitationCode: null } },
      actor: { type: 'user', id: t.credentials.userId },
    });
    expect(await secretsLeak(invitation, orgId)).toBe(false);
  });

  it('refuses a second pending invitation, an existing member, a foreign tenant and a past expiry', async () => {
    await invite('dup@example.com');
    const other = await otherOrganization(t);
    const theirs = (await call(other.token, 'POST', '/tenants', { name: 'Theirs' })).json().tenant;
    const cases: [object, number, string, string?][] = [
      [{ email: 'DUP@example.com' }, 409, 'organization_invitation.already_pending'],
      [{ email: 'admin@localhost' }, 409, 'organization_invitation.already_member'],
      [{ email: 'x@example.com', tenantAccess: [theirs.id] }, 400, 'organization_invitation.tenant_not_in_organization', 'body.tenantAccess.0'],
      [{ email: 'x@example.com', expiresAt: new Date(Date.now() - 1000).toISOString() }, 400, 'request.invalid', 'body.expiresAt'],
      [{ email: 'not an email' }, 400, 'request.invalid', 'body.email'],
      [{ email: 'x@example.com', role: 'god' }, 400, 'request.invalid', 'body.role'],
      [{ email: 'x@example.com', token: 'mine' }, 400, 'request.invalid', 'body.token'],
    ];
    for (const [payload, status, code, path] of cases) {
      const res = await call(pat, 'POST', inv(), payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(status);
      expect(res.json()).toMatchObject({ code, ...(path ? { details: [expect.objectContaining({ path })] } : {}) });
    }
  });

  it('accepts with the token: the user with that verified email becomes an active member at once', async () => {
    const invitation = await invite('grace@example.com', { role: 'admin' });
    const grace = await userPrincipal(t, { email: 'grace@example.com', scopes: [] }); // any valid user token will do
    expect((await call(grace.token, 'GET', `/organizations/${orgId}/members`)).statusCode).toBe(403); // no scope, not a member yet

    const res = await call(grace.token, 'POST', '/organizations/invitations/accept', { token: invitation.token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      organization: expect.objectContaining({ id: orgId }),
      member: {
        id: expect.any(String),
        organizationId: orgId,
        userId: grace.user.id,
        role: 'admin',
        invitedAt: null,
        joinedAt: expect.any(String),
        active: true,
        user: { id: grace.user.id, displayName: grace.user.displayName, emails: ['grace@example.com'] },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    // Another user with the same address (an email is unique within an environment, so in another one) is not a member.
    const elsewhere = (await call(pat, 'POST', `/tenants/${t.credentials.tenantId}/projects`, { name: 'Elsewhere' })).json().environments[0].id;
    const viewer = await userPrincipal(t, { email: 'grace@example.com', environmentId: elsewhere, scopes: ['organizations:read'] });
    expect((await call(viewer.token, 'GET', '/organizations')).json().total).toBe(0);
    const after = (await call(pat, 'GET', inv())).json().invitations.find((i: Invitation) => i.id === invitation.id);
    expect(after).toMatchObject({ status: 'accepted', acceptedAt: expect.any(String) });

    const again = await call(grace.token, 'POST', '/organizations/invitations/accept', { token: invitation.token });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('organization_invitation.accepted');
    expect((await eventsAbout(invitation.id)).map((e) => e.type)).toEqual(['organization.invitation.created', 'organization.invitation.accepted']);
    expect((await eventsAbout(res.json().member.id)).map((e) => [e.type, e.data.invitationId])).toEqual([['organization.member.joined', invitation.id]]);
    expect((await outboxOf(invitation.id)).at(-1)).toEqual({ action: 'signal', kind: 'invitation-expiry', topic: 'invitation', payload: { accepted: true } });
  });

  it('refuses a user whose verified email is not the invited one (403), a service account (403) and an unknown token (404)', async () => {
    const invitation = await invite('hopper@example.com');
    const stranger = await userPrincipal(t, { email: 'someone@example.com' });
    const unverified = await userPrincipal(t, { email: 'hopper@example.com', verified: false });
    for (const token of [stranger.token, unverified.token]) {
      const res = await call(token, 'POST', '/organizations/invitations/accept', { token: invitation.token });
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('organization_invitation.email_mismatch');
    }
    const sa = await call(await t.token(), 'POST', '/organizations/invitations/accept', { token: invitation.token });
    expect(sa.statusCode).toBe(403);
    expect(sa.json().code).toBe('auth.user_required');
    const unknown = await call(stranger.token, 'POST', '/organizations/invitations/accept', { token: 'nope' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('organization_invitation.not_found');
    const missing = await call(stranger.token, 'POST', '/organizations/invitations/accept', {});
    expect(missing.json().details[0].path).toBe('body.token');
    expect((await call(pat, 'GET', inv())).json().invitations.find((i: Invitation) => i.id === invitation.id).status).toBe('pending');
  });

  it('joins with the code, typed loosely; a wrong code is 404', async () => {
    const invitation = await invite('lin@example.com');
    const lin = await userPrincipal(t, { email: 'lin@example.com' });
    const typed = invitation.invitationCode!.replace('-', ' ').toLowerCase();
    const res = await call(lin.token, 'POST', '/organizations/join', { invitationCode: typed });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      organization: expect.objectContaining({ id: orgId }),
      user: { id: lin.user.id, displayName: lin.user.displayName, emails: ['lin@example.com'] },
    });
    const used = await call(lin.token, 'POST', '/organizations/join', { invitationCode: invitation.invitationCode });
    expect(used.statusCode).toBe(409);
    expect(used.json().code).toBe('organization_invitation.accepted');
    const wrong = await call(lin.token, 'POST', '/organizations/join', { invitationCode: 'AAAAA-AAAAA' });
    expect(wrong.statusCode).toBe(404);
  });

  it('revokes a pending invitation: it can no longer be accepted, revoked twice is 409', async () => {
    const invitation = await invite('rev@example.com');
    const res = await call(pat, 'DELETE', inv(`/${invitation.id}`));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      organization: expect.objectContaining({ id: orgId }),
      invitation: { ...invitation, token: null, invitationCode: null, status: 'revoked', updatedAt: expect.any(String) },
    });
    const user = await userPrincipal(t, { email: 'rev@example.com' });
    for (const [url, payload] of [
      ['/organizations/invitations/accept', { token: invitation.token }],
      ['/organizations/join', { invitationCode: invitation.invitationCode }],
    ] as const) {
      const accepted = await call(user.token, 'POST', url, payload);
      expect(accepted.statusCode).toBe(409);
      expect(accepted.json().code).toBe('organization_invitation.revoked');
    }
    for (const [method, url] of [
      ['DELETE', inv(`/${invitation.id}`)],
      ['POST', inv(`/${invitation.id}/resend`)],
    ] as const) {
      const again = await call(pat, method, url);
      expect(again.statusCode).toBe(409);
      expect(again.json().code).toBe('organization_invitation.revoked');
    }
    expect((await outboxOf(invitation.id)).at(-1)).toEqual({ action: 'signal', kind: 'invitation-expiry', topic: 'invitation', payload: { revoked: true } });
    expect((await eventsAbout(invitation.id)).map((e) => e.type)).toEqual(['organization.invitation.created', 'organization.invitation.revoked']);
  });

  it('reads a due invitation as expired (before the process marks it) and refuses to accept or resend it', async () => {
    const invitation = await invite('late@example.com');
    await t.pool.query(sql.unsafe`UPDATE organization_invitations SET expires_at = now() - interval '1 second' WHERE id = ${invitation.id}`);
    expect((await call(pat, 'GET', inv())).json().invitations.find((i: Invitation) => i.id === invitation.id).status).toBe('expired');
    const user = await userPrincipal(t, { email: 'late@example.com' });
    const accepted = await call(user.token, 'POST', '/organizations/invitations/accept', { token: invitation.token });
    expect(accepted.statusCode).toBe(409);
    expect(accepted.json().code).toBe('organization_invitation.expired');
    const resent = await call(pat, 'POST', inv(`/${invitation.id}/resend`));
    expect(resent.statusCode).toBe(409);
    expect(resent.json().code).toBe('organization_invitation.expired');
    expect((await call(pat, 'POST', inv(), { email: 'late@example.com' })).statusCode).toBe(201); // a new invitation replaces the expired one
  });

  it('resends with a new token, code and expiry; the previous token stops working', async () => {
    const invitation = await invite('re@example.com');
    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const res = await call(pat, 'POST', inv(`/${invitation.id}/resend`), { expiresAt });
    expect(res.statusCode).toBe(200);
    const resent = res.json().invitation as Invitation;
    expect(resent).toEqual({ ...invitation, token: expect.any(String), invitationCode: expect.any(String), expiresAt, updatedAt: expect.any(String) });
    expect(resent.token).not.toBe(invitation.token);
    expect((await outboxOf(invitation.id)).at(-1)).toEqual({
      action: 'signal',
      kind: 'invitation-expiry',
      topic: 'invitation',
      payload: { expiresAt: Date.parse(expiresAt) },
    });
    const defaulted = (await call(pat, 'POST', inv(`/${invitation.id}/resend`))).json().invitation;
    expect(Date.parse(defaulted.expiresAt) - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000);
    const user = await userPrincipal(t, { email: 're@example.com' });
    for (const token of [invitation.token, resent.token]) {
      const stale = await call(user.token, 'POST', '/organizations/invitations/accept', { token });
      expect(stale.statusCode).toBe(404);
    }
    expect((await call(user.token, 'POST', '/organizations/invitations/accept', { token: defaulted.token })).statusCode).toBe(200);
    expect((await eventsAbout(invitation.id)).map((e) => e.type)).toEqual([
      'organization.invitation.created',
      'organization.invitation.resent',
      'organization.invitation.resent',
      'organization.invitation.accepted',
    ]);
    expect(await secretsLeak(resent)).toBe(false);
    const past = await call(pat, 'POST', inv(`/${invitation.id}/resend`), { expiresAt: new Date(Date.now() - 1000).toISOString() });
    expect(past.statusCode).toBe(409); // accepted by now
  });
});

describe('send organization invite', () => {
  it('invites an operator by email (an account is made for a new email, unverified); they become a member when they accept it verified', async () => {
    const res = await call(pat, 'POST', `/organizations/${orgId}/invites`, { email: 'new.operator@example.com', scopes: ['tenants:read'] });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      organization: expect.objectContaining({ id: orgId }),
      user: null,
      invitation: expect.objectContaining({
        email: 'new.operator@example.com',
        role: 'member',
        status: 'pending',
        token: expect.any(String),
        invitationCode: expect.any(String),
      }),
    });
    const stored = await t.pool.one(sql.type(z.object({ id: z.string(), environmentId: z.string(), scopes: z.array(z.string()), verified: z.boolean() }))`
      SELECT id, environment_id AS "environmentId", management_scopes AS scopes, (verifications->0->>'verified')::boolean AS verified
      FROM users WHERE user_name = 'new.operator@example.com'`);
    expect(stored).toEqual({ id: expect.any(String), environmentId: t.credentials.environmentId, scopes: ['tenants:read'], verified: false });
    const userId = stored.id;
    const members = () => call(pat, 'GET', `/organizations/${orgId}/members?limit=200`);
    expect((await members()).json().members.map((m: { userId: string }) => m.userId)).not.toContain(userId);
    expect((await tenantEvents(t, t.credentials.tenantId, { type: 'user.*' })).filter((e) => e.subject?.id === userId)).toEqual([]);
    expect(await eventsAbout(userId)).toEqual([]);

    // The invitee's own token (as a sign-in would give them).
    const { token } = await userPrincipal(t, { email: 'other.address@example.com' });
    await t.pool.query(
      sql.unsafe`UPDATE personal_access_tokens SET user_id = ${userId}, scopes = '{tenants:read}' WHERE user_id = (SELECT id FROM users WHERE user_name = 'other.address@example.com')`,
    );
    const unverified = await call(token, 'POST', '/organizations/invitations/accept', { token: body.invitation.token });
    expect(unverified.statusCode).toBe(403);
    expect(unverified.json().code).toBe('organization_invitation.email_mismatch');
    await verifyEmails(t, userId);
    const accepted = await call(token, 'POST', '/organizations/invitations/accept', { token: body.invitation.token });
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json().member).toMatchObject({ userId, active: true, joinedAt: expect.any(String) });
    expect((await members()).json().members.find((m: { userId: string }) => m.userId === userId)).toMatchObject({ active: true });
    expect((await call(token, 'GET', '/tenants')).statusCode).toBe(200);

    const again = await call(pat, 'POST', `/organizations/${orgId}/invites`, { email: 'new.operator@example.com' });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('organization_invitation.already_member');
  });

  it('reuses an existing operator, honours validFrom, and refuses scopes the caller does not hold', async () => {
    const existing = await userPrincipal(t, { email: 'known@example.com', scopes: ['organizations:write'] });
    const validFrom = new Date(Date.now() + 3_600_000).toISOString();
    const res = await call(pat, 'POST', `/organizations/${orgId}/invites`, {
      email: 'known@example.com',
      validFrom,
      validUntil: new Date(Date.now() + 7_200_000).toISOString(),
      scopes: ['tenants:read'],
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().user).toBeNull();
    const scopes = await t.pool.oneFirst(
      sql.type(z.object({ s: z.array(z.string()) }))`SELECT management_scopes AS s FROM users WHERE id = ${existing.user.id}`,
    );
    expect(scopes).toEqual(['organizations:write']); // an existing account's scopes are not changed
    const early = await call(existing.token, 'POST', '/organizations/invitations/accept', { token: res.json().invitation.token });
    expect(early.statusCode).toBe(409);
    expect(early.json().code).toBe('organization_invitation.not_yet_valid');

    const narrowCaller = await userPrincipal(t, { organizationId: orgId, scopes: ['organizations:write'] });
    const beyond = await call(narrowCaller.token, 'POST', `/organizations/${orgId}/invites`, { email: 'z@example.com', scopes: ['signing-keys:write'] });
    expect(beyond.statusCode).toBe(400);
    expect(beyond.json()).toMatchObject({ code: 'organization_invitation.scope_not_held', details: [{ path: 'body.scopes' }] });
    const window = await call(pat, 'POST', `/organizations/${orgId}/invites`, { email: 'z@example.com', validFrom, validUntil: validFrom });
    expect(window.statusCode).toBe(400);
    expect(window.json().details[0].path).toBe('body.validFrom');
  });

  it("keeps another organization's invite to itself: nothing in the operators' stream or audit, no sign of an existing account", async () => {
    const other = await otherOrganization(t);
    const admin = await t.token();
    const send = (email: string) => call(other.token, 'POST', `/organizations/${other.organizationId}/invites`, { email });
    const fresh = await send('fresh.invitee@example.com');
    const known = await send('admin@localhost'); // the bootstrap operator, a member of the operator organization
    for (const res of [fresh, known]) {
      expect(res.statusCode).toBe(201);
      expect(res.json()).toEqual({
        organization: expect.objectContaining({ id: other.organizationId }),
        user: null,
        invitation: expect.objectContaining({ organizationId: other.organizationId, status: 'pending', invitedBy: other.serviceAccount.id }),
      });
    }
    expect(known.body).not.toContain(t.credentials.userId);
    expect((await call(other.token, 'GET', `/organizations/${other.organizationId}/members`)).json().members).toEqual([]);
    const theirAudit = (await call(other.token, 'GET', `/organizations/${other.organizationId}/audit-logs`)).json().auditLogs;
    expect(theirAudit.map((e: { action: string }) => e.action)).toEqual(['organization.invitation.create', 'organization.invitation.create']);

    // The operator organization sees nothing of it: no event in its tenant's stream, no audit entry.
    const stream: { actor: { id: string } }[] = [];
    for (let cursor = ''; ;) {
      const page = (await call(admin, 'GET', `/tenants/${t.credentials.tenantId}/events?limit=200${cursor && `&cursor=${cursor}`}`)).json();
      if (page.events.length === 0) break;
      stream.push(...page.events);
      cursor = page.nextCursor;
    }
    expect(stream.length).toBeGreaterThan(0);
    expect(JSON.stringify(stream)).not.toContain('fresh.invitee@example.com');
    expect(stream.filter((e: { actor: { id: string } }) => e.actor.id === other.serviceAccount.id)).toEqual([]);
    const audit = (await call(admin, 'GET', `/organizations/${orgId}/audit-logs?limit=200&actorId=${other.serviceAccount.id}`)).json().auditLogs;
    expect(audit).toEqual([]);
  });
});

describe('isolation', () => {
  it('a principal of another organization gets 404 for the invitations of this one', async () => {
    const invitation = await invite('iso@example.com');
    const other = await otherOrganization(t);
    const requests: [Method, string, object?][] = [
      ['GET', inv()],
      ['POST', inv(), { email: 'x@example.com' }],
      ['DELETE', inv(`/${invitation.id}`)],
      ['POST', inv(`/${invitation.id}/resend`)],
      ['POST', `/organizations/${orgId}/invites`, { email: 'x@example.com' }],
      ['DELETE', inv(`/${invitation.id}`, other.organizationId)], // their organization, our invitation
    ];
    for (const [method, url, payload] of requests) {
      const res = await call(other.token, method, url, payload);
      expect(res.statusCode, `${method} ${url}`).toBe(404);
    }
    expect((await call(pat, 'GET', inv())).json().invitations.find((i: Invitation) => i.id === invitation.id).status).toBe('pending');
  });
});
