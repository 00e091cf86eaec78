// Who and what a process is about, for the search attributes of its Temporal workflow (an operator finds a
// tenant's or an endpoint's processes in Temporal UI): read when the process starts, ids only. Each kind's
// definition says where its scope is read from (a ScopeQuery, lib/processes/lookups.ts); this reads it.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { ProcessScope } from '../../lib/processes/contracts.ts';
import type { EnvironmentTable, ScopeQuery } from '../../lib/processes/lookups.ts';

export type { ProcessScope } from '../../lib/processes/contracts.ts';

const Delivery = z.object({ tenantId: z.uuid(), endpointId: z.uuid().nullable(), channelId: z.uuid().nullable(), addOnEnvironmentId: z.uuid().nullable() });
const Id = z.object({ id: z.uuid() });

const ENVIRONMENT_TABLES = {
  impersonation_grants: sql.identifier(['impersonation_grants']),
  trust_store_keys: sql.identifier(['trust_store_keys']),
  elevate_requests: sql.identifier(['elevate_requests']),
  elevate_grants: sql.identifier(['elevate_grants']),
  messages: sql.identifier(['messages']),
  vanity_domains: sql.identifier(['vanity_domains']),
} satisfies Record<EnvironmentTable, unknown>;

export function createProcessScopeQueries(db: CommonQueryMethods) {
  const organizationOfTenant = (tenantId: string | null) =>
    tenantId
      ? db.maybeOneFirst(sql.type(Id)`
          SELECT organization_id AS id FROM organization_tenants WHERE tenant_id = ${tenantId} ORDER BY created_at, organization_id LIMIT 1`)
      : Promise.resolve(null);

  return {
    /** The scope `query` names, for a process whose start was recorded with `recordedTenantId`. */
    scopeOf: async (query: ScopeQuery, recordedTenantId: string | null): Promise<ProcessScope> => {
      if (query.of === 'invitation') {
        const organizationId = await db.maybeOneFirst(sql.type(Id)`
          SELECT organization_id AS id FROM organization_invitations WHERE id = ${query.invitationId}`);
        return { tenantId: null, organizationId, invitationId: query.invitationId };
      }
      if (query.of === 'delivery') {
        const delivery = await db.maybeOne(sql.type(Delivery)`
          SELECT tenant_id AS "tenantId", endpoint_id AS "endpointId", channel_id AS "channelId",
            (SELECT environment_id FROM add_ons WHERE id = add_on_id) AS "addOnEnvironmentId"
          FROM deliveries WHERE id = ${query.deliveryId}`);
        const tenantId = delivery?.tenantId ?? recordedTenantId;
        return {
          tenantId,
          organizationId: await organizationOfTenant(tenantId),
          endpointId: delivery?.endpointId ?? null,
          channelId: delivery?.channelId ?? null,
          // A delivery to an add-on: its environment, the add-on's own id being no search attribute.
          ...(delivery?.addOnEnvironmentId ? { environmentId: delivery.addOnEnvironmentId } : {}),
        };
      }
      const scope: ProcessScope = { tenantId: recordedTenantId, organizationId: await organizationOfTenant(recordedTenantId) };
      if (query.environmentOf) {
        const { table, id } = query.environmentOf;
        scope.environmentId = await db.maybeOneFirst(sql.type(Id)`SELECT environment_id AS id FROM ${ENVIRONMENT_TABLES[table]} WHERE id = ${id}`);
      }
      if (query.environmentId) scope.environmentId = query.environmentId;
      if (query.domainId) scope.domainId = query.domainId;
      return scope;
    },
  };
}
