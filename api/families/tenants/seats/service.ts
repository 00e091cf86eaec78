import { randomBytes } from 'node:crypto';
import type { DatabasePool } from 'slonik';
import { hashSecret } from '../../../../lib/crypto.ts';
import { createTenantSeatQueries, type SeatChanges } from '../../../../db/tenants/seats/queries.ts';
import { createTenantQueries } from '../../../../db/tenants/tenants/queries.ts';
import { createUserQueries } from '../../../../db/identity/users/queries.ts';
import type { TenantSeat } from '../../../../db/tenants/seats/rows.ts';
import { ApiError, conflict, invalidField, notFound, orNotFound } from '../../../errors.ts';
import { narrow } from '../../../scopes.ts';
import { record, type Caller, type TenantCaller } from '../../../access/caller.ts';
import { seatInForce, seatScopes, type SeatGrant } from '../../../access/principals.ts';
import { visibleTenant } from '../../../access/reach.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';

/** A join code may be used for a week (or until the seat's validUntil, if sooner). */
const CODE_TTL_MS = 7 * 24 * 3600_000;

interface Window {
  validFrom?: string | null;
  validUntil?: string | null;
}

const scopeIds = (seat: TenantSeat) => (seat.scopes ?? []).map((s) => s.id);

/** The seat through which the caller acts in the tenant (one it reaches through none of its organizations), or null. */
const actingSeat = (caller: Caller, tenantId: string) => caller.principal.seats.find((s) => s.tenantId === tenantId && seatInForce(s, Date.now())) ?? null;

const epoch = (iso: string | null | undefined) => (iso ? Date.parse(iso) : null);

const beyondOwnSeat = (message: string, path?: string) =>
  new ApiError(403, 'tenant_seat.beyond_own_seat', message, path ? { details: [{ path, message }] } : {});

/** Whether a seat ending at `validUntil` ends no later than the caller's own seat `own`. */
const endsWithin = (own: SeatGrant, validUntil: number | null) => own.validUntil === null || (validUntil !== null && validUntil <= own.validUntil);

/** Whether seat scopes give no more than the caller holds through its own seat (none means no narrowing: the whole token). */
function scopesWithin(caller: Caller, own: SeatGrant, scopes: string[]) {
  const held = (s: string) => narrow(caller.principal.scopes, [s]).length > 0 && (own.scopes.length === 0 || narrow(own.scopes, [s]).length > 0);
  return scopes.length > 0 ? scopes.every(held) : own.scopes.length === 0 && caller.principal.scopes.includes('*');
}

/**
 * Nobody hands out scopes they do not hold themselves in this tenant; a caller narrowed here by its own seat
 * passes its seat's scopes on when it gives none (empty would mean "no narrowing"), and a seat holder whose seat
 * does not narrow passes its token's.
 */
function seatScopesFrom(caller: Caller, tenantId: string, scopes: string[]) {
  const limit = seatScopes(caller.principal, tenantId);
  const held = caller.principal.scopes;
  const inherited = limit ?? (actingSeat(caller, tenantId) && !held.includes('*') ? held : null);
  const given = scopes.length === 0 && inherited ? inherited : scopes;
  const beyond = given.filter((s) => narrow(caller.principal.scopes, [s]).length === 0 || (limit && narrow(limit, [s]).length === 0));
  if (beyond.length > 0) throw invalidField('body.scopes', `includes scopes the caller does not hold: ${beyond.join(', ')}`, 'tenant_seat.scope_not_held');
  return given;
}

/** An invitation must end in the future; a seat may be given an end in the past (which ends its access now). */
function checkWindow(window: Window, options: { future: boolean }) {
  const from = window.validFrom ? Date.parse(window.validFrom) : null;
  const until = window.validUntil ? Date.parse(window.validUntil) : null;
  if (from !== null && until !== null && until <= from) throw invalidField('body.validUntil', 'must be after validFrom');
  if (options.future && until !== null && until <= Date.now()) throw invalidField('body.validUntil', 'must be in the future');
}

/**
 * A principal acting through its seat never widens a seat: it may narrow its own (scopes, end, active false), and
 * change another seat only while that seat, before and after, lies within its own; it never (de)activates others.
 */
function checkSeatHolderChange(caller: Caller, own: SeatGrant, before: TenantSeat, changes: SeatChanges) {
  if (before.accountId !== caller.principal.id) {
    if (changes.active !== undefined && changes.active !== before.active) {
      throw beyondOwnSeat('A seat holder cannot activate or deactivate the seats of others.', 'body.active');
    }
    if (!scopesWithin(caller, own, scopeIds(before)) || !endsWithin(own, epoch(before.validUntil))) {
      throw beyondOwnSeat("This seat gives more than the caller's own seat; a seat holder can change only seats within its own.");
    }
  } else if (changes.active && !before.active) {
    throw beyondOwnSeat('A seat holder cannot reactivate its own seat.', 'body.active');
  }
  // Scopes in `changes` already passed seatScopesFrom (no more than the caller's seat allows).
  if (!endsWithin(own, changes.validUntil === undefined ? epoch(before.validUntil) : epoch(changes.validUntil))) {
    throw beyondOwnSeat("The seat would end after the caller's own seat does.", 'body.validUntil');
  }
}

export function createTenantSeatService(pool: DatabasePool) {
  return {
    list: async (caller: TenantCaller, query: PageQuery) => ({
      tenant: caller.scope.tenant,
      ...(await listPage('seats', query, (page) => createTenantSeatQueries(pool).findSeatsOfTenant(caller.scope.tenant.id, page))),
    }),

    invite: (caller: TenantCaller, input: { email: string; scopes?: string[] } & Window) => {
      const { tenant } = caller.scope;
      const tenantId = tenant.id;
      const scopes = seatScopesFrom(caller, tenantId, input.scopes ?? []);
      // A seat holder's invitee gets no more than the inviter's seat: its end by default, never a later one.
      const own = actingSeat(caller, tenantId);
      const validUntil = input.validUntil ?? (own?.validUntil ? new Date(own.validUntil).toISOString() : null);
      if (own && !endsWithin(own, epoch(validUntil))) {
        throw beyondOwnSeat("The seat would end after the inviter's own seat does.", 'body.validUntil');
      }
      checkWindow({ validFrom: input.validFrom, validUntil }, { future: true });
      const email = input.email.trim().toLowerCase();
      const invitationCode = randomBytes(32).toString('base64url');
      const codeExpiresAt = new Date(Math.min(Date.now() + CODE_TTL_MS, validUntil ? Date.parse(validUntil) : Infinity)).toISOString();
      return pool.transaction(async (trx) => {
        const seats = createTenantSeatQueries(trx);
        if ((await seats.findSeatByEmail(tenantId, email))?.accountId)
          throw conflict('tenant_seat.already_joined', `${email} already holds a seat in this tenant.`);
        const seat = await seats.upsertPendingSeat(
          tenantId,
          email,
          { scopes, validFrom: input.validFrom ?? null, validUntil },
          {
            hash: hashSecret(invitationCode),
            expiresAt: codeExpiresAt,
          },
        );
        await record(trx, caller, {
          action: 'tenant.invite.create',
          resource: { type: 'tenant_seat', id: seat.id },
          after: seat,
          event: { type: 'tenant.invite.created', data: { seat } },
        });
        return { tenant, invitationCode };
      });
    },

    update: (caller: TenantCaller, seatId: string, changes: SeatChanges) => {
      const { tenant } = caller.scope;
      if (changes.scopes) changes = { ...changes, scopes: seatScopesFrom(caller, tenant.id, changes.scopes) };
      return pool.transaction(async (trx) => {
        const seats = createTenantSeatQueries(trx);
        const before = await orNotFound(seats.findSeatOfTenant(seatId, tenant.id), 'tenant_seat', seatId);
        const own = actingSeat(caller, tenant.id);
        if (own) checkSeatHolderChange(caller, own, before, changes);
        checkWindow(
          {
            validFrom: changes.validFrom === undefined ? before.validFrom : changes.validFrom,
            validUntil: changes.validUntil === undefined ? before.validUntil : changes.validUntil,
          },
          { future: false },
        );
        const seat = await seats.updateSeat(tenant.id, seatId, changes);
        // The seat's user sees the change on its next request.
        const previous = Object.fromEntries(Object.keys(changes).map((k) => [k, k === 'scopes' ? scopeIds(before) : before[k as keyof TenantSeat]]));
        await record(trx, caller, {
          action: 'tenant.seat.update',
          resource: { type: 'tenant_seat', id: seatId },
          before,
          after: seat,
          event: { type: 'tenant.seat.updated', data: { seat, previous } },
        });
        return { tenant, seat };
      });
    },

    /** The caller (a user) takes the pending seat its code opens; the invited email must be one of its verified emails. */
    join: (caller: Caller, invitationCode: string) => {
      const { principal } = caller;
      if (principal.type !== 'user') throw new ApiError(403, 'auth.user_required', 'Only a user joins a tenant; this token does not belong to a user.');
      return pool.transaction(async (trx) => {
        const seats = createTenantSeatQueries(trx);
        const pending = await seats.findPendingSeatByCode(hashSecret(invitationCode));
        if (!pending) throw new ApiError(404, 'tenant_invitation.not_found', 'No pending tenant invitation has this code.');
        if (pending.codeExpired) throw new ApiError(410, 'tenant_invitation.expired', 'This invitation code has expired; ask for a new invitation.');
        const user = principal.environmentId && (await createUserQueries(trx).findUserById(principal.environmentId, principal.id));
        if (!user) throw notFound('user', principal.id);
        const verified = user.verifications.some((v) => v.verified && v.email.toLowerCase() === pending.email);
        if (!verified)
          throw new ApiError(403, 'tenant_invitation.email_mismatch', 'The invitation is for another email address than the verified emails of this user.');
        if (await seats.hasSeatInTenant(pending.tenantId, user.id))
          throw conflict('tenant_seat.already_joined', 'This user already holds a seat in this tenant.');
        const seat = await seats.joinSeat(pending.tenantId, pending.id, user.id);
        const tenant = await createTenantQueries(trx).lockTenantById(pending.tenantId);
        if (!tenant) throw notFound('tenant', pending.tenantId);
        await record(trx, caller, {
          action: 'tenant.seat.join',
          resource: { type: 'tenant_seat', id: seat.id },
          scope: { organizationId: tenant.organizationIds[0] ?? null, tenantId: tenant.id },
          after: seat,
          event: { type: 'tenant.seat.joined', data: { seat } },
        });
        return { tenant: visibleTenant(principal, tenant), user };
      });
    },
  };
}

export type TenantSeatService = ReturnType<typeof createTenantSeatService>;
