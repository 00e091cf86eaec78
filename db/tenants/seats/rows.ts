// A tenant seat (SPEC "Tenants and projects": TenantSeat, TenantSeatScope).
import { z } from 'zod';
import { nullableTimestamp, uuid } from '../../shared/rows.ts';

export const TenantSeatScope = z
  .object({
    scopeId: z.string().nullable(),
    kind: z.string().describe('`scope`: a management API scope'),
    id: z.string().describe('The scope, e.g. `tenants:read`'),
    crud: z.record(z.string(), z.unknown()).nullable(),
  })
  .meta({ id: 'TenantSeatScope' });
export type TenantSeatScope = z.infer<typeof TenantSeatScope>;

export const SEAT_STATUSES = ['pending', 'active', 'inactive', 'scheduled', 'expired'] as const;

export const TenantSeat = z
  .object({
    id: uuid,
    accountId: uuid.nullable().describe('The user who took the seat; null while the invitation is pending'),
    email: z.string().nullable(),
    status: z
      .enum(SEAT_STATUSES)
      .nullable()
      .describe('pending (not joined yet), inactive (active=false), scheduled (before validFrom), expired (after validUntil) or active'),
    validFrom: nullableTimestamp,
    validUntil: nullableTimestamp,
    activeFrom: nullableTimestamp.describe('When the user joined'),
    createdAt: nullableTimestamp,
    updatedAt: nullableTimestamp,
    active: z.boolean().nullable(),
    scopes: z.array(TenantSeatScope).nullable(),
  })
  .meta({ id: 'TenantSeat' });
export type TenantSeat = z.infer<typeof TenantSeat>;
