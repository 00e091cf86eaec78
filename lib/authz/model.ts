// An environment's stored access model, as db/access/model/queries.ts loads it in one round trip. The engine
// compiles it (compileModel) into indexes and compiled conditions, once per change.

/**
 * The kind of identifier AuthZEN requests name directory subjects by in an environment (its settings; default
 * `any`). Users: their id, externalId, userName or any of their emails; groups: their id, externalId, or name
 * (for `userName` and `email`). `any`: users by id, externalId or userName, groups by id, externalId or name, which
 * is unambiguous because the directory refuses an externalId equal to another's userName (name) or id (0026).
 * userName, email and name compare ignoring case.
 */
export type SubjectIdentifier = 'any' | 'id' | 'externalId' | 'userName' | 'email';
export const SUBJECT_IDENTIFIERS = ['any', 'id', 'externalId', 'userName', 'email'] as const satisfies readonly SubjectIdentifier[];
export const DEFAULT_SUBJECT_IDENTIFIER: SubjectIdentifier = 'any';

/** What decides an AuthZEN request on a resource type: the directory and roles (RBAC) or the environment's FGA model. */
export const DECISION_ENGINES = ['rbac', 'fga'] as const;
export type DecisionEngine = (typeof DECISION_ENGINES)[number];

export interface StoredModel {
  /** How requests name subjects; absent: DEFAULT_SUBJECT_IDENTIFIER. */
  subjectIdentifier?: SubjectIdentifier;
  /** Resource types whose engine is set explicitly; absent: none (./engines.ts decides the rest). */
  resourceTypeEngines?: Record<string, DecisionEngine>;
  users: {
    id: string;
    userName: string;
    externalId: string | null;
    displayName: string | null;
    active: boolean;
    /** Lower-cased. */
    emails: string[];
    attributes: Record<string, unknown>;
    groupIds: string[];
  }[];
  groups: { id: string; name: string; externalId: string | null; attributes: Record<string, unknown> }[];
  resourceTypes: { id: string; key: string; storedInstancesOnly: boolean; actions: string[] }[];
  resources: { typeId: string; id: string; attributes: Record<string, unknown> }[];
  roles: { id: string; key: string; permissions: { typeId: string; action: string; condition: string | null }[]; inherits: string[] }[];
  assignments: {
    id: string;
    roleId: string;
    userId: string | null;
    groupId: string | null;
    /** Instances the grant is limited to (resource type key and id); null = all. */
    resources: { type: string; id: string }[] | null;
    condition: string | null;
  }[];
  /** Trust-store entries (agents, MCP servers, workloads): non-human subjects, decided by their entry alone; absent: none. */
  agents?: {
    id: string;
    kind: 'agent' | 'mcp_server' | 'workload';
    subject: string;
    status: 'pending' | 'verified' | 'suspended' | 'revoked';
    /** null allows none. */
    allowedTools: string[] | null;
    /** The pinned `sha256:<hex>` of the tool manifest, or null. */
    manifestHash: string | null;
  }[];
  /**
   * Elevate grants that are or will be in force (active): a role (optionally limited to instances) or a group
   * membership for the user, between `from` and `until` (ms since the epoch), checked at every decision.
   */
  elevations?: {
    grantId: string;
    userId: string;
    roleId: string | null;
    groupId: string | null;
    resources: { type: string; id: string }[] | null;
    from: number;
    until: number;
  }[];
  /** Billing: each organization's entitlements (feature key → true or a number), by organization id; absent: none. */
  entitlements?: Record<string, Record<string, unknown>>;
}
