// The decision engine's contract: AuthZEN 1.0 entities in, decisions and search results out. The engine
// (./model.ts compiles an environment's stored model, ./evaluate.ts and ./search.ts answer from it in memory) is
// pure: no I/O, so it answers in microseconds and is tested without a database.

/** AuthZEN Subject / Resource: `type` and `id` (scoped to the type), and optional `properties`. */
export interface Entity {
  type: string;
  id: string;
  properties?: Record<string, unknown>;
}

/** AuthZEN Action. */
export interface ActionEntity {
  name: string;
  properties?: Record<string, unknown>;
}

/** One access evaluation, complete (batch defaults already applied). */
export interface EvaluationRequest {
  subject: Entity;
  action: ActionEntity;
  resource: Entity;
  context?: Record<string, unknown>;
}

/** Why a decision came out as it did; the `context.reason` of an explained decision and the decision log's reason. */
export type Reason =
  | {
      permitted: true;
      /** The role whose permission matched (the role assigned, or one it inherits). */
      role: string;
      /** The role that was assigned, when the permission came through inheritance. */
      assignedRole: string;
      assignmentId: string;
      /** Whom the role was assigned to: the user itself, or a group the user belongs to. */
      via: { type: 'user' | 'group'; id: string };
      /** The elevate grant the permission came through (a role it grants, or a group membership it gives). */
      grantId?: string;
      permission: string;
      /** The conditions that held (of the permission and of the assignment). */
      conditions: string[];
    }
  | {
      /** A non-human subject, permitted by its trust-store entry (./agents.ts). */
      permitted: true;
      code: 'trust_store.tool_allowed';
      message: string;
      entryId: string;
    }
  | {
      /** Decided by the environment's FGA model: the relation path that granted, from the resource to the subject. */
      permitted: true;
      code: 'fga.granted';
      message: string;
      path: string[];
    }
  | {
      permitted: false;
      code: DenyCode;
      message: string;
      /** Conditions that were evaluated and did not hold, with the error when one failed to evaluate. */
      failedConditions?: { condition: string; role: string; assignmentId: string; error?: string }[];
      /** The trust-store entry that decided, for a non-human subject. */
      entryId?: string;
    };

export type DenyCode =
  | 'unknown_subject_type'
  | 'unknown_subject'
  | 'inactive_subject'
  | 'unknown_resource_type'
  | 'unknown_action'
  | 'unknown_resource'
  | 'no_permission'
  | 'condition_not_met'
  | 'cost_limit_exceeded'
  | 'trust_store.not_found'
  | 'trust_store.not_active'
  | 'trust_store.tool_not_allowed'
  | 'trust_store.manifest_mismatch'
  /** FGA: the subject has no path to the relation on the resource. */
  | 'fga.not_related'
  /** FGA: the request cannot be asked of the model (an id FGA refuses, a condition's missing parameter, too deep a resolution). */
  | 'fga.invalid_request';

export interface DecisionResult {
  decision: boolean;
  reason: Reason;
}

/** A page of a search: `offset` into the engine's stable order of candidates. */
export interface SearchPage {
  offset: number;
  limit: number;
}

export interface SearchResult<T> {
  results: T[];
  /** The offset to continue from, or null on the last page. */
  nextOffset: number | null;
}
