import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, clientCredentialsToken, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';
import { seatUser } from '../helpers/seat-users.ts';

let t: TestApp;
let admin: string;
let tenantA: string;
let tenantB: string;
beforeAll(async () => {
  t = await startTestApp();
  admin = await t.token();
  tenantA = t.credentials.tenantId;
  tenantB = (await t.app.inject({ method: 'POST', url: '/v1/tenants', headers: bearer(admin), payload: { name: 'Tenant B' } })).json().tenant.id;
});
afterAll(() => t.close());

const get = (url: string, token: string) => t.app.inject({ method: 'GET', url, headers: bearer(token) });
const invite = (tenantId: string, payload: Record<string, unknown>, token = admin) =>
  t.app.inject({ method: 'POST', url: `/v1/tenants/${tenantId}/invites`, headers: bearer(token), payload });
const join = (invitationCode: string, token: string) =>
  t.app.inject({ method: 'POST', url: '/v1/tenants/join', headers: bearer(token), payload: { invitationCode } });
const patchSeat = (seatId: string, payload: Record<string, unknown>, tenantId = tenantA) =>
  t.app.inject({ method: 'PATCH', url: `/v1/tenants/${tenantId}/seats/${seatId}`, headers: bearer(admin), payload });
const seatOf = async (email: string, tenantId = tenantA) =>
  (await get(`/v1/tenants/${tenantId}/seats?limit=200`, admin)).json().seats.find((s: { email: string }) => s.email === email);
const reach = async (token: string, tenantId = tenantA) => (await get(`/v1/tenants/${tenantId}`, token)).statusCode;
const poll = (fn: () => Promise<unknown>) => expect.poll(fn, { timeout: 2000, interval: 20 });

/** A guest who joined tenant A with the given invitation terms (and reaches it, unless the seat starts later). */
async function joinedGuest(terms: Record<string, unknown> = {}) {
  const guest = await seatUser(t);
  const { invitationCode } = (await invite(tenantA, { email: guest.email, ...terms })).json();
  expect((await join(invitationCode, guest.token)).statusCode).toBe(200);
  // The join drops the guest's cached principal on NOTIFY, which may land after the next request.
  if (!terms.validFrom) await poll(() => reach(guest.token)).toBe(200);
  return { ...guest, seat: await seatOf(guest.email) };
}

describe('tenant invites and join', () => {
  it('invites an email (code shown once), and the user who joins with it reaches that one tenant', async () => {
    const guest = await seatUser(t, { email: 'Guest.One@Example.com' });
    expect(await reach(guest.token)).toBe(404);
    expect((await get('/v1/tenants', guest.token)).json()).toEqual({ tenants: [], total: 0, nextCursor: null, hasMore: false });

    const invited = await invite(tenantA, { email: 'Guest.One@Example.com', scopes: ['tenants:read', 'events:read'] });
    expect(invited.statusCode).toBe(201);
    const { tenant, invitationCode } = invited.json();
    expect(tenant).toMatchObject({ id: tenantA, name: 'Default' });
    expect(invitationCode).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const pending = await seatOf('guest.one@example.com');
    expect(pending).toEqual({
      id: expect.any(String),
      accountId: null,
      email: 'guest.one@example.com',
      status: 'pending',
      validFrom: null,
      validUntil: null,
      activeFrom: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      active: true,
      scopes: [
        { scopeId: null, kind: 'scope', id: 'tenants:read', crud: null },
        { scopeId: null, kind: 'scope', id: 'events:read', crud: null },
      ],
    });

    const joined = await join(invitationCode, guest.token);
    expect(joined.statusCode).toBe(200);
    expect(Object.keys(joined.json()).sort()).toEqual(['tenant', 'user']);
    expect(joined.json().tenant).toMatchObject({ id: tenantA, organizationIds: [] });
    expect(joined.json().user).toMatchObject({ id: guest.user.id, userName: 'Guest.One@Example.com' });
    expect(await seatOf('guest.one@example.com')).toMatchObject({ accountId: guest.user.id, status: 'active', activeFrom: expect.any(String) });

    await poll(() => reach(guest.token)).toBe(200);
    const listed = (await get('/v1/tenants', guest.token)).json();
    expect(listed.total).toBe(1);
    expect(listed.tenants[0]).toMatchObject({ id: tenantA, organizationIds: [] });
    expect(await reach(guest.token, tenantB)).toBe(404);
    expect((await get(`/v1/tenants/${tenantA}/events`, guest.token)).statusCode).toBe(200);
    expect((await join(invitationCode, guest.token)).statusCode).toBe(404);
  });

  it('narrows the user to the seat scopes in that tenant', async () => {
    const guest = await joinedGuest({ scopes: ['tenants:read'] });
    expect(await reach(guest.token)).toBe(200);
    const update = await t.app.inject({ method: 'PATCH', url: `/v1/tenants/${tenantA}`, headers: bearer(guest.token), payload: { name: 'hijacked' } });
    expect(update.statusCode).toBe(403);
    expect(update.json().code).toBe('auth.insufficient_seat_scope');
    expect((await get(`/v1/tenants/${tenantA}/events`, guest.token)).statusCode).toBe(403);
    // A seat user passes on no more than its seat allows: an invite without scopes inherits the seat's.
    const writer = await joinedGuest({ scopes: ['tenants:write'] });
    expect((await invite(tenantA, { email: 'x@example.com', scopes: ['events:read'] }, writer.token)).json().code).toBe('tenant_seat.scope_not_held');
    expect((await invite(tenantA, { email: 'y@example.com' }, writer.token)).statusCode).toBe(201);
    // What it changes it sees as a seat holder sees the tenant: without the tenant's organizations.
    const renamed = await t.app.inject({ method: 'PATCH', url: `/v1/tenants/${tenantA}`, headers: bearer(writer.token), payload: { company: 'Seat Co' } });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().tenant).toMatchObject({ id: tenantA, company: 'Seat Co', organizationIds: [] });
    expect((await seatOf('y@example.com')).scopes.map((x: { id: string }) => x.id)).toEqual(['tenants:write']);
    expect((await patchSeat(guest.seat.id, { scopes: [] })).statusCode).toBe(200);
    await poll(async () => (await get(`/v1/tenants/${tenantA}/events`, guest.token)).statusCode).toBe(200);
  });

  it('gives no access before validFrom', async () => {
    const validFrom = new Date(Date.now() + 1500).toISOString();
    const guest = await joinedGuest({ validFrom });
    expect(guest.seat).toMatchObject({ status: 'scheduled', validFrom });
    expect(await reach(guest.token)).toBe(404);
    expect((await get('/v1/tenants', guest.token)).json().total).toBe(0);
    await new Promise((r) => setTimeout(r, Date.parse(validFrom) - Date.now() + 50));
    expect(await reach(guest.token)).toBe(200);
  });

  it('gives no access after validUntil, nor while inactive, from the next request', async () => {
    const guest = await joinedGuest();
    expect(await reach(guest.token)).toBe(200);
    const ended = await patchSeat(guest.seat.id, { validUntil: new Date(Date.now() - 60_000).toISOString() });
    expect(ended.statusCode).toBe(200);
    expect(ended.json()).toEqual({
      tenant: expect.objectContaining({ id: tenantA }),
      seat: { ...guest.seat, status: 'expired', validUntil: expect.any(String), updatedAt: expect.any(String) },
    });
    await poll(() => reach(guest.token)).toBe(404);

    expect((await patchSeat(guest.seat.id, { validUntil: null })).json().seat.status).toBe('active');
    await poll(() => reach(guest.token)).toBe(200);
    const off = await patchSeat(guest.seat.id, { active: false });
    expect(off.json().seat).toMatchObject({ active: false, status: 'inactive' });
    await poll(() => reach(guest.token)).toBe(404);
    expect((await get('/v1/tenants', guest.token)).json().total).toBe(0);
  });

  it('checks who joins: users only, the invited email, a live code', async () => {
    const guest = await seatUser(t);
    const intruder = await seatUser(t);
    const { invitationCode } = (await invite(tenantA, { email: guest.email })).json();
    expect((await join(invitationCode, intruder.token)).json().code).toBe('tenant_invitation.email_mismatch');
    expect((await join(invitationCode, admin)).json().code).toBe('auth.user_required');
    expect((await join('not-a-code', guest.token)).statusCode).toBe(404);
    // Inviting again re-issues the code: the old one stops working.
    const again = (await invite(tenantA, { email: guest.email })).json().invitationCode;
    expect((await join(invitationCode, guest.token)).statusCode).toBe(404);
    await t.pool.query(sql.unsafe`UPDATE tenant_seats SET code_expires_at = now() - interval '1 second' WHERE email = ${guest.email}`);
    expect((await join(again, guest.token)).statusCode).toBe(410);
    const fresh = (await invite(tenantA, { email: guest.email })).json().invitationCode;
    expect((await join(fresh, guest.token)).statusCode).toBe(200);
    expect((await invite(tenantA, { email: guest.email })).statusCode).toBe(409);
  });

  it('validates invites and seat updates, and keeps other organizations out', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'body.email'],
      [{ email: 'not-an-email' }, 'body.email'],
      [{ email: 'a@example.com', scopes: ['root'] }, 'body.scopes.0'],
      [{ email: 'a@example.com', validFrom: '2030-01-02T00:00:00Z', validUntil: '2030-01-01T00:00:00Z' }, 'body.validUntil'],
      [{ email: 'a@example.com', validUntil: '2001-01-01T00:00:00Z' }, 'body.validUntil'],
      [{ email: 'a@example.com', role: 'admin' }, 'body.role'],
    ];
    for (const [payload, path] of cases) {
      const res = await invite(tenantA, payload);
      expect(res.statusCode, path).toBe(400);
      expect(res.json().details?.[0]?.path, JSON.stringify(payload)).toBe(path);
    }
    const org = t.credentials.organizationId;
    const sa = (
      await t.app.inject({
        method: 'POST',
        url: `/v1/organizations/${org}/service-accounts`,
        headers: bearer(admin),
        payload: { name: 'inviter', scopes: ['tenants:write'] },
      })
    ).json();
    const weak = await clientCredentialsToken(t.app, sa.serviceAccount.clientId, sa.clientSecret);
    expect((await invite(tenantA, { email: 'b@example.com', scopes: ['webhooks:write'] }, weak)).json().code).toBe('tenant_seat.scope_not_held');

    const other = await otherOrganization(t);
    expect((await invite(tenantA, { email: 'c@example.com' }, other.token)).statusCode).toBe(404);
    expect((await get(`/v1/tenants/${tenantA}/seats`, other.token)).statusCode).toBe(404);
    const guest = await joinedGuest();
    expect(
      (await t.app.inject({ method: 'PATCH', url: `/v1/tenants/${tenantA}/seats/${guest.seat.id}`, headers: bearer(other.token), payload: { active: false } }))
        .statusCode,
    ).toBe(404);
    expect((await patchSeat(guest.seat.id, { active: false }, tenantB)).statusCode).toBe(404);
    expect((await patchSeat(guest.seat.id, { validFrom: '2030-01-02T00:00:00Z', validUntil: '2030-01-01T00:00:00Z' })).statusCode).toBe(400);
  });

  it('lists seats with the tenant, and records events without codes', async () => {
    const guest = await seatUser(t);
    const { invitationCode } = (await invite(tenantA, { email: guest.email })).json();
    expect((await join(invitationCode, guest.token)).statusCode).toBe(200);
    const seat = await seatOf(guest.email);
    expect((await patchSeat(seat.id, { scopes: ['tenants:read'] })).statusCode).toBe(200);

    const list = await get(`/v1/tenants/${tenantA}/seats`, admin);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({
      tenant: expect.objectContaining({ id: tenantA }),
      seats: expect.any(Array),
      total: list.json().seats.length,
      nextCursor: null,
      hasMore: false,
    });
    expect(list.json().seats).toContainEqual(expect.objectContaining({ id: seat.id, email: guest.email }));
    const events = (await tenantEvents(t, tenantA, { type: 'tenant.*' })).filter((e) => e.subject?.id === seat.id);
    expect(events.map((e) => e.type)).toEqual(['tenant.invite.created', 'tenant.seat.joined', 'tenant.seat.updated']);
    const audit = await auditEntries(t, { tenantId: tenantA }, { resourceType: 'tenant_seat', resourceId: seat.id });
    expect(audit).toHaveLength(3);
    const stored = JSON.stringify([events.map((e) => e.data), audit.map((a) => a.changes)]);
    expect(stored).not.toContain(invitationCode);
    expect(stored).not.toMatch(/code/i);
  });
});

describe('seat holders', () => {
  const patchAs = (token: string, seatId: string, payload: Record<string, unknown>) =>
    t.app.inject({ method: 'PATCH', url: `/v1/tenants/${tenantA}/seats/${seatId}`, headers: bearer(token), payload });
  const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();
  const expectBeyond = (res: { statusCode: number; json(): unknown }, path?: string) => {
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ code: 'tenant_seat.beyond_own_seat', ...(path ? { details: [{ path }] } : {}) });
  };

  it('narrows its own seat but never widens it', async () => {
    const end = inHours(2);
    const holder = await joinedGuest({ scopes: ['tenants:write', 'events:read'], validUntil: end });
    expectBeyond(await patchAs(holder.token, holder.seat.id, { validUntil: null }), 'body.validUntil');
    expectBeyond(await patchAs(holder.token, holder.seat.id, { validUntil: inHours(3) }), 'body.validUntil');
    expect((await patchAs(holder.token, holder.seat.id, { scopes: ['webhooks:read'] })).json().code).toBe('tenant_seat.scope_not_held');
    expect((await seatOf(holder.email)).validUntil).toBe(end);

    const earlier = inHours(1);
    const narrowed = await patchAs(holder.token, holder.seat.id, { validUntil: earlier, scopes: ['tenants:write'] });
    expect(narrowed.statusCode).toBe(200);
    expect(narrowed.json().seat).toMatchObject({ validUntil: earlier, scopes: [expect.objectContaining({ id: 'tenants:write' })] });
    expect((await get(`/v1/tenants/${tenantA}/events`, holder.token)).statusCode).toBe(403); // from the very next request
    expect((await patchAs(holder.token, holder.seat.id, { active: false })).statusCode).toBe(200);
    expect(await reach(holder.token)).toBe(404);
  });

  it("cannot deactivate others' seats nor change seats beyond its own, and bounds the seats it invites by its own", async () => {
    const end = inHours(2);
    const holder = await joinedGuest({ scopes: ['tenants:write'], validUntil: end });
    const wider = await joinedGuest(); // no end, no narrowing: more than the holder has
    expectBeyond(await patchAs(holder.token, wider.seat.id, { active: false }), 'body.active');
    expectBeyond(await patchAs(holder.token, wider.seat.id, { validUntil: inHours(1) }));
    expect(await seatOf(wider.email)).toEqual(wider.seat);
    expect(await reach(wider.token)).toBe(200);

    // What it invites ends when its own seat does (by default), never later.
    const guest = await seatUser(t);
    expectBeyond(await invite(tenantA, { email: guest.email, validUntil: inHours(3) }, holder.token), 'body.validUntil');
    const { invitationCode } = (await invite(tenantA, { email: guest.email }, holder.token)).json();
    expect((await join(invitationCode, guest.token)).statusCode).toBe(200);
    const bounded = await seatOf(guest.email);
    expect(bounded).toMatchObject({ validUntil: end, scopes: [expect.objectContaining({ id: 'tenants:write' })] });

    // A seat within its own can be narrowed, not lifted beyond its own, nor switched off.
    expect((await patchAs(holder.token, bounded.id, { validUntil: inHours(1) })).statusCode).toBe(200);
    expectBeyond(await patchAs(holder.token, bounded.id, { validUntil: null }), 'body.validUntil');
    expectBeyond(await patchAs(holder.token, bounded.id, { active: false }), 'body.active');
    // Organization principals are not bound by seats.
    expect((await patchSeat(bounded.id, { validUntil: null, active: false })).statusCode).toBe(200);
  });
});
