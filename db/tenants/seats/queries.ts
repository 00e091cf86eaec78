import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { TenantSeat } from './rows.ts';
import { selectPage, type PageRequest } from '../../shared/pages.ts';

// Each stored scope string is shown as a TenantSeatScope of kind `scope`.
const columns = sql.fragment`
  s.id, s.user_id AS "accountId", s.email,
  CASE WHEN s.user_id IS NULL THEN 'pending' WHEN NOT s.active THEN 'inactive' WHEN s.valid_from > now() THEN 'scheduled'
    WHEN s.valid_until <= now() THEN 'expired' ELSE 'active' END AS status,
  s.valid_from AS "validFrom", s.valid_until AS "validUntil", s.joined_at AS "activeFrom",
  s.created_at AS "createdAt", s.updated_at AS "updatedAt", s.active,
  coalesce((SELECT json_agg(json_build_object('scopeId', NULL, 'kind', 'scope', 'id', x.scope, 'crud', NULL) ORDER BY x.n)
    FROM unnest(s.scopes) WITH ORDINALITY AS x(scope, n)), '[]'::json) AS scopes`;

const SeatWithTenant = TenantSeat.extend({ tenantId: z.uuid(), codeExpired: z.boolean() });

/** A seat as authentication sees it: which tenant, with which scopes, in which window (ISO strings). */
const SeatAccess = z.object({ tenantId: z.uuid(), scopes: z.array(z.string()), validFrom: z.string().nullable(), validUntil: z.string().nullable() });
export type SeatAccess = z.infer<typeof SeatAccess>;

export interface SeatTerms {
  scopes: string[];
  validFrom: string | null;
  validUntil: string | null;
}

export interface SeatChanges {
  scopes?: string[];
  validFrom?: string | null;
  validUntil?: string | null;
  active?: boolean;
}

const COLUMN: Record<keyof SeatChanges, string> = { scopes: 'scopes', validFrom: 'valid_from', validUntil: 'valid_until', active: 'active' };

export function createTenantSeatQueries(db: CommonQueryMethods) {
  const one = (tenantId: string, id: string) =>
    db.one(sql.type(TenantSeat)`SELECT ${columns} FROM tenant_seats s WHERE s.tenant_id = ${tenantId} AND s.id = ${id}`);

  return {
    findSeatOfTenant: (id: string, tenantId: string) =>
      db.maybeOne(sql.type(TenantSeat)`SELECT ${columns} FROM tenant_seats s WHERE s.id = ${id} AND s.tenant_id = ${tenantId} FOR UPDATE OF s`),

    findSeatByEmail: (tenantId: string, email: string) =>
      db.maybeOne(sql.type(TenantSeat)`SELECT ${columns} FROM tenant_seats s WHERE s.tenant_id = ${tenantId} AND s.email = ${email} FOR UPDATE OF s`),

    findSeatsOfTenant: (tenantId: string, page: PageRequest) =>
      selectPage(db, TenantSeat, sql.fragment`SELECT ${columns} FROM tenant_seats s WHERE s.tenant_id = ${tenantId}`, sql.fragment`s.created_at, s.id`, page),

    /** The pending seat a join code opens, locked; `codeExpired` when the code is too old to use. */
    // unscoped: the code itself selects the seat (and so the tenant) before anything else is known.
    findPendingSeatByCode: (codeHash: Buffer) =>
      db.maybeOne(sql.type(SeatWithTenant)`
        SELECT ${columns}, s.tenant_id AS "tenantId", coalesce(s.code_expires_at <= now(), false) AS "codeExpired"
        FROM tenant_seats s WHERE s.code_hash = ${sql.binary(codeHash)} AND s.user_id IS NULL FOR UPDATE OF s`),

    /** Creates a pending seat, or re-issues the code (and terms) of the pending seat of that email. */
    upsertPendingSeat: async (tenantId: string, email: string, terms: SeatTerms, code: { hash: Buffer; expiresAt: string }) => {
      const id = await db.oneFirst(sql.type(z.object({ id: z.uuid() }))`
        INSERT INTO tenant_seats (tenant_id, email, scopes, valid_from, valid_until, code_hash, code_expires_at)
        VALUES (${tenantId}, ${email}, ${sql.array(terms.scopes, 'text')}, ${terms.validFrom}, ${terms.validUntil},
          ${sql.binary(code.hash)}, ${code.expiresAt})
        ON CONFLICT (tenant_id, email) DO UPDATE SET scopes = excluded.scopes, valid_from = excluded.valid_from,
          valid_until = excluded.valid_until, code_hash = excluded.code_hash, code_expires_at = excluded.code_expires_at, updated_at = now()
        WHERE tenant_seats.user_id IS NULL
        RETURNING id`);
      return one(tenantId, id);
    },

    updateSeat: async (tenantId: string, id: string, changes: SeatChanges) => {
      const sets = (Object.keys(COLUMN) as (keyof SeatChanges)[])
        .filter((k) => changes[k] !== undefined)
        .map((k) => {
          const value = changes[k];
          return sql.fragment`${sql.identifier([COLUMN[k]])} = ${Array.isArray(value) ? sql.array(value, 'text') : (value ?? null)}`;
        });
      await db.query(
        sql.unsafe`UPDATE tenant_seats SET ${sql.join([...sets, sql.fragment`updated_at = now()`], sql.fragment`, `)} WHERE tenant_id = ${tenantId} AND id = ${id}`,
      );
      return one(tenantId, id);
    },

    joinSeat: async (tenantId: string, id: string, userId: string) => {
      await db.query(sql.unsafe`
        UPDATE tenant_seats SET user_id = ${userId}, joined_at = now(), code_hash = NULL, code_expires_at = NULL, updated_at = now()
        WHERE tenant_id = ${tenantId} AND id = ${id}`);
      return one(tenantId, id);
    },

    hasSeatInTenant: (tenantId: string, userId: string) =>
      db.exists(sql.unsafe`SELECT 1 FROM tenant_seats WHERE tenant_id = ${tenantId} AND user_id = ${userId}`),

    /** Active seats of a user in tenants it does not reach through its organizations anyway. */
    // unscoped: authentication asks which tenants a user's seats reach.
    findSeatAccessOfUser: (userId: string) =>
      db.any(sql.type(SeatAccess)`
        SELECT s.tenant_id AS "tenantId", s.scopes, s.valid_from AS "validFrom", s.valid_until AS "validUntil"
        FROM tenant_seats s
        WHERE s.user_id = ${userId} AND s.active AND NOT EXISTS (
          SELECT 1 FROM organization_tenants ot JOIN organization_members m ON m.organization_id = ot.organization_id
          WHERE ot.tenant_id = s.tenant_id AND m.user_id = ${userId} AND m.active)`),
  };
}
