// The FGA engine's contract: OpenFGA's model (schema 1.1, JSON form) and tuples in, check / expand / list-objects /
// list-users answers out. The engine (this folder) is pure: it reads tuples only through a TupleReader, which the
// database layer implements (db/access/fga) and unit tests implement in memory.

/** OpenFGA's JSON form of a relation's rewrite (a Userset). Exactly one key is set. */
export interface Userset {
  this?: Record<string, never>;
  computedUserset?: { relation: string };
  tupleToUserset?: { tupleset: { relation: string }; computedUserset: { relation: string } };
  union?: { child: Userset[] };
  intersection?: { child: Userset[] };
  difference?: { base: Userset; subtract: Userset };
}

/** A type restriction of a directly assignable relation: `user`, `user:*` (wildcard), `group#member`, each optionally `with <condition>`. */
export interface RelationReference {
  type: string;
  relation?: string;
  wildcard?: Record<string, never>;
  condition?: string;
}

export interface TypeDefinition {
  type: string;
  relations?: Record<string, Userset>;
  metadata?: { relations?: Record<string, { directly_related_user_types?: RelationReference[] }> | null } | null;
}

/** A condition's parameter type: OpenFGA's `TYPE_NAME_*` values; `generic_types` for map<T> and list<T>. */
export interface ConditionParameter {
  type_name: string;
  generic_types?: ConditionParameter[];
}

export interface ConditionDefinition {
  name: string;
  expression: string;
  parameters?: Record<string, ConditionParameter>;
}

/** An authorization model as OpenFGA's API writes and reads it (schema 1.1). */
export interface AuthorizationModel {
  id: string;
  schema_version: string;
  type_definitions: TypeDefinition[];
  conditions?: Record<string, ConditionDefinition>;
}

/** A tuple key as the API sends it: `object` is `type:id`, `user` is `type:id`, `type:*` or `type:id#relation`. */
export interface TupleKey {
  user: string;
  relation: string;
  object: string;
  condition?: { name: string; context?: Record<string, unknown> | undefined } | undefined;
}

/** A stored relationship tuple, split into its parts. */
export interface Tuple {
  objectType: string;
  objectId: string;
  relation: string;
  userType: string;
  /** `*` for a wildcard. */
  userId: string;
  /** The userset's relation (`group:eng#member` → `member`); '' for a plain user or a wildcard. */
  userRelation: string;
  condition: { name: string; context: Record<string, unknown> } | null;
}

/** A subject as a tuple's user part: `user:anne` → { type: 'user', id: 'anne', relation: '' }. */
export interface UserRef {
  type: string;
  id: string;
  relation: string;
}

/**
 * Where the engine reads tuples. Each call is one batched look-up (one SQL statement in the database reader), so
 * the engine asks for every pending object of a step at once.
 */
export interface TupleReader {
  /** The tuples of these objects (all of `objectType`) under any of `relations`. */
  byObjects(objectType: string, objectIds: readonly string[], relations: readonly string[]): Promise<Tuple[]>;
  /**
   * The tuples of `objectType`#`relation` whose user is one of `users` (the reverse index; a wildcard user is
   * `{ type, id: '*', relation: '' }`). At most `limit` tuples, when given.
   */
  byUsers(objectType: string, relation: string, users: readonly UserRef[], limit?: number): Promise<Tuple[]>;
}

/** Per-request inputs every query takes besides its own. */
export interface QueryOptions {
  /** Tuples that count for this request only (validated against the model like written ones). */
  contextualTuples?: readonly TupleKey[] | undefined;
  /** The request's condition context (merged with each tuple's own; the tuple's values win). */
  context?: Record<string, unknown> | undefined;
}

export interface CheckRequest extends QueryOptions {
  user: string;
  relation: string;
  object: string;
}

export interface CheckResult {
  allowed: boolean;
  /**
   * When allowed: the path that granted, from the checked object to the user, e.g.
   * ['document:1#viewer', 'folder:x#viewer', 'user:anne']. Null when denied.
   */
  path: string[] | null;
}

export interface ListObjectsRequest extends QueryOptions {
  type: string;
  relation: string;
  user: string;
}

export interface ListUsersRequest extends QueryOptions {
  object: { type: string; id: string };
  relation: string;
  userFilters: { type: string; relation?: string | undefined }[];
}

/** One user of a list-users answer, in OpenFGA's shape. */
export type ListedUser =
  { object: { type: string; id: string } } | { userset: { type: string; id: string; relation: string } } | { wildcard: { type: string } };

/** OpenFGA's expand tree (the `tree` of the expand response). */
export interface UsersetTree {
  root: UsersetTreeNode;
}
export interface UsersetTreeNode {
  name: string;
  leaf?: { users?: { users: string[] }; computed?: { userset: string }; tupleToUserset?: { tupleset: string; computed: { userset: string }[] } };
  union?: { nodes: UsersetTreeNode[] };
  intersection?: { nodes: UsersetTreeNode[] };
  difference?: { base: UsersetTreeNode; subtract: UsersetTreeNode };
}

/** The limits OpenFGA documents, as the engine enforces them. */
export const FGA_LIMITS = {
  /** Resolution depth of a check (nested usersets and tuple-to-usersets): beyond it, FgaError('resolution_too_complex'). */
  resolutionDepth: 25,
  /** Tuples in one write request (writes and deletes together). */
  tuplesPerWrite: 100,
  contextualTuples: 100,
  /** Objects a list-objects answers at most. */
  listObjectsResults: 1000,
  /** Users a list-users answers at most. */
  listUsersResults: 1000,
  /** Checks in one batch-check. */
  batchCheckItems: 50,
} as const;

/** OpenFGA's error codes the engine raises; the API answers them with 400 `{ code, message }`. */
export type FgaErrorCode =
  | 'validation_error'
  | 'invalid_authorization_model'
  | 'type_not_found'
  | 'relation_not_found'
  | 'invalid_tuple'
  | 'authorization_model_resolution_too_complex'
  | 'condition_missing_parameters'
  | 'condition_evaluation_error';

export class FgaError extends Error {
  readonly code: FgaErrorCode;
  /** For model errors: 1-based line and column in the model's DSL. */
  readonly position: { line: number; column: number } | undefined;
  constructor(code: FgaErrorCode, message: string, position?: { line: number; column: number }) {
    super(message);
    this.code = code;
    this.position = position;
  }
}
