// What storage looks up for the processes, declared as data so that each kind's definition (workflows/) names it
// without importing storage: the rows the sweeper looks at (db/processes/sweep.ts returns them) and where a process's
// scope is read from (db/processes/scopes.ts resolves it). Pure types.

/** The rows of each sweep query: rows that should have a running process, with what its start needs. */
export interface SweepRows {
  pendingInvitations: { id: string; expiresAt: number };
  pendingImpersonationGrants: { id: string; tenantId: string; expiresAt: number };
  pendingElevateRequests: { id: string; tenantId: string; createdAt: number; expiresAt: number; escalate: boolean };
  openElevateGrants: { id: string; tenantId: string; until: number };
  pendingDomains: { id: string; tenantId: string };
  retiringKeys: { id: string; tenantId: string; retiresAt: number };
  pendingDeliveries: { id: string; tenantId: string; batchId: string | null; attemptCount: number; nextDelayMs: number };
  pendingDirectorySyncs: { id: string; tenantId: string };
  /** The deployment's one OIDC clean-up process (its entity id), when no start of it waits in the outbox. */
  oidcCleanup: { id: string };
  /** The deployment's one retention process (its entity id), when no start of it waits in the outbox. */
  retention: { id: string };
  /** Messages still queued, with what their `message-send` process starts from. */
  queuedMessages: { id: string; tenantId: string; providers: string[]; scheduleMs: number[] };
  /** Vanity domains (all of them: a process lives as long as its domain, removal included). */
  vanityDomains: { id: string; tenantId: string };
  /** Environments with an active `stripe` add-on, with their sync interval, when no start or message of their sync waits. */
  billingSyncs: { id: string; tenantId: string; intervalMs: number };
}
export type SweepQuery = keyof SweepRows;

/** Tables whose row names the environment a process works in. */
export type EnvironmentTable = 'impersonation_grants' | 'trust_store_keys' | 'elevate_requests' | 'elevate_grants' | 'messages' | 'vanity_domains';

/**
 * Where the scope of a process is read from: the invitation (its organization, no tenant), the delivery (tenant,
 * endpoint or channel), or the tenant the start was recorded with, plus the environment (given, or read from a row)
 * and the domain.
 */
export type ScopeQuery =
  | { of: 'invitation'; invitationId: string }
  | { of: 'delivery'; deliveryId: string }
  | { of: 'tenant'; environmentOf?: { table: EnvironmentTable; id: string }; environmentId?: string; domainId?: string };
