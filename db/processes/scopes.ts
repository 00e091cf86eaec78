// Who and what a process is about, for the search attributes of its Temporal workflow (an operator finds a
// tenant's or an endpoint's processes in Temporal UI): read when the process starts, ids only.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { ProcessInput, ProcessKind } from '../../workflows/port.ts';

export interface ProcessScope {
  tenantId: string | null;
  /** The organization the tenant was created in (a tenant may belong to several: the first), or the invitation's. */
  organizationId: string | null;
  /** The environment of processes that work in one (directory sync, grants, trust-store keys). */
  environmentId?: string | null;
  endpointId?: string | null;
  channelId?: string | null;
  domainId?: string;
  invitationId?: string;
}

const Delivery = z.object({ tenantId: z.uuid(), endpointId: z.uuid().nullable(), channelId: z.uuid().nullable() });

export function createProcessScopeQueries(db: CommonQueryMethods) {
  const organizationOfTenant = (tenantId: string) =>
    db.maybeOneFirst(sql.type(z.object({ id: z.uuid() }))`
      SELECT organization_id AS id FROM organization_tenants WHERE tenant_id = ${tenantId} ORDER BY created_at, organization_id LIMIT 1`);

  return {
    /** The scope of the process of `kind` started with `input` (and the tenant its start was recorded with). */
    scopeOf: async <K extends ProcessKind>(kind: K, input: ProcessInput<K>, recordedTenantId: string | null): Promise<ProcessScope> => {
      if (kind === 'invitation-expiry') {
        const { invitationId } = input as ProcessInput<'invitation-expiry'>;
        const organizationId = await db.maybeOneFirst(sql.type(z.object({ id: z.uuid() }))`
          SELECT organization_id AS id FROM organization_invitations WHERE id = ${invitationId}`);
        return { tenantId: null, organizationId, invitationId };
      }
      if (kind === 'webhook-delivery') {
        const { deliveryId } = input as ProcessInput<'webhook-delivery'>;
        const delivery = await db.maybeOne(sql.type(Delivery)`
          SELECT tenant_id AS "tenantId", endpoint_id AS "endpointId", channel_id AS "channelId" FROM deliveries WHERE id = ${deliveryId}`);
        const tenantId = delivery?.tenantId ?? recordedTenantId;
        return {
          tenantId,
          organizationId: tenantId ? await organizationOfTenant(tenantId) : null,
          endpointId: delivery?.endpointId ?? null,
          channelId: delivery?.channelId ?? null,
        };
      }
      if (kind === 'impersonation-expiry') {
        const { grantId } = input as ProcessInput<'impersonation-expiry'>;
        const environmentId = await db.maybeOneFirst(sql.type(z.object({ id: z.uuid() }))`
          SELECT environment_id AS id FROM impersonation_grants WHERE id = ${grantId}`);
        return { tenantId: recordedTenantId, organizationId: recordedTenantId ? await organizationOfTenant(recordedTenantId) : null, environmentId };
      }
      if (kind === 'trust-store-key-retirement') {
        const { keyId } = input as ProcessInput<'trust-store-key-retirement'>;
        const environmentId = await db.maybeOneFirst(
          sql.type(z.object({ id: z.uuid() }))`SELECT environment_id AS id FROM trust_store_keys WHERE id = ${keyId}`,
        );
        return { tenantId: recordedTenantId, organizationId: recordedTenantId ? await organizationOfTenant(recordedTenantId) : null, environmentId };
      }
      if (kind === 'elevate-request' || kind === 'elevate-grant') {
        const [table, id] =
          kind === 'elevate-request'
            ? [sql.identifier(['elevate_requests']), (input as ProcessInput<'elevate-request'>).requestId]
            : [sql.identifier(['elevate_grants']), (input as ProcessInput<'elevate-grant'>).grantId];
        const environmentId = await db.maybeOneFirst(sql.type(z.object({ id: z.uuid() }))`SELECT environment_id AS id FROM ${table} WHERE id = ${id}`);
        return { tenantId: recordedTenantId, organizationId: recordedTenantId ? await organizationOfTenant(recordedTenantId) : null, environmentId };
      }
      const scope = { tenantId: recordedTenantId, organizationId: recordedTenantId ? await organizationOfTenant(recordedTenantId) : null };
      if (kind === 'domain-verification') return { ...scope, domainId: (input as ProcessInput<'domain-verification'>).domainId };
      if (kind === 'directory-sync') return { ...scope, environmentId: (input as ProcessInput<'directory-sync'>).environmentId };
      return scope;
    },
  };
}
