import { z } from 'zod';
import { AuditLogEntry } from '../../../../db/events/audit-logs/queries.ts';
import { cursorPageOf, cursorParam, encodeCursor } from '../../../common/schemas.ts';

export { AuditLogEntry };

// Audit cursors are `a<sequence>`: the sequence of the last (oldest) entry returned.
export const encodeAuditCursor = (sequence: number) => encodeCursor(`a${sequence}`);

const timestamp = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' });
const text = z.string().min(1).max(200);

export const AuditLogsQuery = z.strictObject({
  cursor: cursorParam(/^a([1-9]\d{0,15})$/, (m) => Number(m[1])).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  actorId: text.optional(),
  actorType: z.enum(['service_account', 'user', 'organization_key', 'system', 'provisioning_token', 'api_secret', 'portal_session']).optional(),
  action: text.optional().describe('Exact action, e.g. `tenant.update`'),
  resourceType: text.optional().describe('e.g. `tenant`, `service_account`, `webhook_endpoint`'),
  resourceId: text.optional(),
  occurredAfter: timestamp.optional().describe('Inclusive lower bound'),
  occurredBefore: timestamp.optional().describe('Exclusive upper bound'),
});
export type AuditLogsQuery = z.infer<typeof AuditLogsQuery>;

export const AuditLogsPage = cursorPageOf('auditLogs', AuditLogEntry).meta({ id: 'AuditLogsPage' });

export const TenantAuditParams = z.strictObject({ tenantId: z.uuid() });
export const OrganizationAuditParams = z.strictObject({ organizationId: z.uuid() });
