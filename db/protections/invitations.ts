// Whether an address is invited into a tenant, for the restrictions' `invite_only` sign-up: a pending tenant seat
// (`POST /v1/tenants/{tenantId}/invites`: not joined, active, not past its end) or a pending organization invitation
// (not expired) of an organization the tenant belongs to, naming the tenant in its `tenantAccess` or naming none.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

/** One statement over two unique/partial indexes (tenant_seats (tenant_id, email), the pending invitations' email). */
export const invitedToTenant = (db: CommonQueryMethods, tenantId: string, email: string): Promise<boolean> =>
  db.oneFirst(sql.type(z.object({ invited: z.boolean() }))`
    SELECT EXISTS (
        SELECT 1 FROM tenant_seats s
        WHERE s.tenant_id = ${tenantId} AND s.email = lower(${email}) AND s.user_id IS NULL AND s.active
          AND (s.valid_until IS NULL OR s.valid_until > now()))
      OR EXISTS (
        SELECT 1 FROM organization_tenants ot
        JOIN organization_invitations i ON i.organization_id = ot.organization_id
        WHERE ot.tenant_id = ${tenantId} AND lower(i.email) = lower(${email}) AND i.status = 'pending' AND i.expires_at > now()
          AND (cardinality(i.tenant_access) = 0 OR ${tenantId}::uuid = ANY (i.tenant_access))) AS invited`);
