import { recordChange, type Actor, type Change, type RequestOrigin } from '../../db/shared/changes.ts';
import type { EventType } from '../../db/event-catalog.ts';
import type { Tenant } from '../../db/tenants/tenants/rows.ts';
import type { Principal } from './principals.ts';

/** What a request addresses, resolved and checked once (api/plugins/scope.ts): never re-checked by services. */
export interface RequestScope {
  /** The tenant of `:tenantId` (or of the resource a route names), as the principal may see it. */
  tenant: Tenant | null;
  /** `:organizationId`, or the organization of the principal through which it reaches the tenant. */
  organizationId: string | null;
  /** `:environmentId`, an environment of the tenant. */
  environmentId: string | null;
}

/** Who is acting, from where, and in what: what every mutation needs for its audit entry. */
export interface Caller {
  principal: Principal;
  actor: Actor;
  origin: RequestOrigin;
  scope: RequestScope;
}

/** A caller on a route addressing a tenant, an organization or an environment (the types say which is resolved). */
export type TenantCaller = Caller & { scope: { tenant: Tenant } };
export type OrganizationCaller = Caller & { scope: { organizationId: string } };
export type EnvironmentCaller = TenantCaller & { scope: { environmentId: string } };

/** A change without who made it: `scope` defaults to the caller's (each key given overrides it). */
export type CallerChange<T extends EventType = EventType> = Omit<Change<T>, 'actor' | 'origin' | 'scope'> & { scope?: Change['scope'] };

/** Records the audit entry and the event of a change the caller made, inside the change's transaction. */
export const record = <T extends EventType>(db: Parameters<typeof recordChange>[0], caller: Caller, change: CallerChange<T>) =>
  recordChange<T>(db, {
    ...change,
    actor: caller.actor,
    origin: caller.origin,
    scope: {
      organizationId: caller.scope.organizationId,
      tenantId: caller.scope.tenant?.id ?? null,
      environmentId: caller.scope.environmentId,
      ...change.scope,
    },
  });
