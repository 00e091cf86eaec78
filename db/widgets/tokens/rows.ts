// A widget token as the API shows it: never the token itself (a bearer JWT, shown once when issued).
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../../shared/rows.ts';

export const WIDGET_KINDS = ['user_profile', 'user_security', 'organization_members', 'api_keys', 'audit_log'] as const;
export type WidgetKind = (typeof WIDGET_KINDS)[number];

export const WIDGET_TOKEN_STATUSES = ['active', 'expired', 'revoked'] as const;

export const WidgetToken = z
  .object({
    id: uuid.describe('The token id, its `jti` claim'),
    environmentId: uuid,
    organizationId: uuid.nullable().describe('The organization an organization_members or audit_log widget acts on; null for the other kinds'),
    userId: uuid.describe('The directory user the widget acts as'),
    kind: z.enum(WIDGET_KINDS),
    scopes: z.array(z.string()).describe('What the widget may do (see the scopes of each kind in docs/widgets.md)'),
    origins: z.array(z.string()).describe('The exact origins (scheme://host[:port]) allowed to call the widget API with the token'),
    issuedBy: z.object({ type: z.string(), id: z.string().nullable() }).describe('The management principal that issued it'),
    createdAt: isoTimestamp,
    expiresAt: isoTimestamp,
    revokedAt: nullableTimestamp,
    status: z.enum(WIDGET_TOKEN_STATUSES).describe('revoked, expired (expiresAt has passed) or active'),
  })
  .meta({ id: 'WidgetToken' });
export type WidgetToken = z.infer<typeof WidgetToken>;
