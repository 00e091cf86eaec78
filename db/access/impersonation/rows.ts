// An impersonation grant as the API shows it (never its token), and an environment's impersonation settings.
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../../shared/rows.ts';

export const GRANT_STATUSES = ['active', 'expired', 'revoked'] as const;

const Party = z.object({ type: z.string().describe('user, service_account or organization_key'), id: uuid });

export const ImpersonationGrant = z
  .object({
    id: uuid,
    environmentId: uuid,
    userId: uuid.describe('The directory user impersonated'),
    actor: Party.describe('The operator who acts as the user'),
    reason: z.string(),
    createdAt: isoTimestamp,
    expiresAt: isoTimestamp,
    revokedAt: nullableTimestamp,
    revokedBy: z.object({ type: z.string().describe('user, service_account, organization_key or system'), id: z.string() }).nullable(),
    revokeReason: z.string().nullable(),
    status: z.enum(GRANT_STATUSES).describe('revoked, expired (expiresAt has passed) or active'),
  })
  .meta({ id: 'ImpersonationGrant' });
export type ImpersonationGrant = z.infer<typeof ImpersonationGrant>;

export const ImpersonationSettings = z
  .object({
    maxDurationMinutes: z.number().int().describe('The longest grant an operator may issue in this environment'),
    notifyUser: z.boolean().describe('Whether impersonation.grant.created carries what a notification to the user needs'),
  })
  .meta({ id: 'ImpersonationSettings' });
export type ImpersonationSettings = z.infer<typeof ImpersonationSettings>;

export const DEFAULT_SETTINGS: ImpersonationSettings = { maxDurationMinutes: 15, notifyUser: false };
