// Which engine decides a resource type, and AuthZEN answered from the environment's FGA model. A type set
// explicitly in the AuthZEN settings goes to that engine; otherwise RBAC decides the types its model defines, FGA
// the types only its latest model defines, and RBAC the rest (denied there as unknown). For FGA, the subject
// `{type, id}` is the user `type:id`, the resource the object `type:id`, the action's name the relation and the
// context the conditions' context.
import type { AccessModel } from '../../../../lib/authz/compile.ts';
import type { DecisionEngine } from '../../../../lib/authz/model.ts';
import type { DecisionResult, DenyCode, EvaluationRequest, SearchPage, SearchResult } from '../../../../lib/authz/types.ts';
import { relationsOf } from '../../../../lib/fga/model.ts';
import type { CheckRequest, CheckResult, ListObjectsRequest, ListUsersRequest, ListedUser } from '../../../../lib/fga/types.ts';
import { FgaApiError } from '../../../fga/errors.ts';
import type { FgaService } from '../../../fga/service.ts';

/** What AuthZEN asks of an environment's FGA store, always of its latest model. */
export interface FgaDecisions {
  /** Whether the environment's latest FGA model defines `type` (false when it has none). */
  definesType(environmentId: string, type: string): Promise<boolean>;
  /** The relations the latest model defines on `type`. */
  relations(environmentId: string, type: string): Promise<string[]>;
  check(environmentId: string, request: CheckRequest): Promise<CheckResult>;
  listObjects(environmentId: string, request: ListObjectsRequest): Promise<string[]>;
  listUsers(environmentId: string, request: ListUsersRequest): Promise<ListedUser[]>;
}

export const fgaDecisions = (fga: FgaService): FgaDecisions => ({
  definesType: async (environmentId, type) => (await fga.latestModel(environmentId))?.compiled.types.has(type) ?? false,
  relations: async (environmentId, type) => {
    const latest = await fga.latestModel(environmentId);
    return latest?.compiled.types.has(type) ? relationsOf(latest.compiled, type) : [];
  },
  check: (environmentId, request) => fga.check(environmentId, {}, request),
  listObjects: (environmentId, request) => fga.listObjects(environmentId, {}, request),
  listUsers: (environmentId, request) => fga.listUsers(environmentId, {}, request),
});

/** The engine of a resource type: at once when the settings or the RBAC model say, after a look at the FGA model otherwise. */
export function engineFor(model: AccessModel, fga: FgaDecisions, type: string): DecisionEngine | Promise<DecisionEngine> {
  const set = model.resourceTypeEngines.get(type);
  if (set) return set;
  if (model.types.has(type)) return 'rbac';
  return fga.definesType(model.environmentId, type).then((defined) => (defined ? 'fga' : 'rbac'));
}

const CODE_OF: Partial<Record<string, DenyCode>> = {
  type_not_found: 'unknown_resource_type',
  relation_not_found: 'unknown_action',
  latest_authorization_model_not_found: 'unknown_resource_type',
};

const deny = (code: DenyCode, message: string): DecisionResult => ({ decision: false, reason: { permitted: false, code, message } });

/** FGA's refusal of a request (an id it cannot hold, a condition's missing parameter, a resolution too deep); else rethrows. */
function refusal(error: unknown): FgaApiError {
  const known = FgaApiError.from(error);
  if (!known || known.statusCode >= 500) throw error;
  return known;
}

/** A request FGA refuses to answer denies, with FGA's reason. */
function refused(error: unknown): DecisionResult {
  const known = refusal(error);
  return deny(CODE_OF[known.code] ?? 'fga.invalid_request', known.message);
}

export async function decideWithFga(fga: FgaDecisions, environmentId: string, request: EvaluationRequest): Promise<DecisionResult> {
  const user = `${request.subject.type}:${request.subject.id}`;
  const object = `${request.resource.type}:${request.resource.id}`;
  const relation = request.action.name;
  try {
    const result = await fga.check(environmentId, { user, relation, object, ...(request.context ? { context: request.context } : {}) });
    if (!result.allowed || !result.path) return deny('fga.not_related', `${user} has no path to ${relation} on ${object}.`);
    return { decision: true, reason: { permitted: true, code: 'fga.granted', message: `Granted by ${result.path.join(' ← ')}.`, path: result.path } };
  } catch (error) {
    return refused(error);
  }
}

type Context = Record<string, unknown> | undefined;
const none = <T>(): SearchResult<T> => ({ results: [], nextOffset: null });

function pageOf<T>(all: T[], page: SearchPage): SearchResult<T> {
  const end = page.offset + page.limit;
  return { results: all.slice(page.offset, end), nextOffset: end < all.length && page.limit > 0 ? end : null };
}

/** Runs a search; a request FGA refuses finds nothing. */
async function found<T>(search: () => Promise<T[]>, page: SearchPage): Promise<SearchResult<T>> {
  try {
    return pageOf(await search(), page);
  } catch (error) {
    refusal(error);
    return none();
  }
}

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The subjects of `subjectType` with the relation on the resource: FGA's list-users (a `type:*` grant is the id `*`). */
export function searchFgaSubjects(
  fga: FgaDecisions,
  environmentId: string,
  request: { subjectType: string; action: string; resource: { type: string; id: string }; context: Context },
  page: SearchPage,
) {
  return found(async () => {
    const users = await fga.listUsers(environmentId, {
      object: request.resource,
      relation: request.action,
      userFilters: [{ type: request.subjectType }],
      ...(request.context ? { context: request.context } : {}),
    });
    const subjects = users.flatMap((u) => ('object' in u ? [u.object] : 'wildcard' in u ? [{ type: u.wildcard.type, id: '*' }] : []));
    return subjects.sort(byId);
  }, page);
}

/** The resources of `resourceType` the subject has the relation on: FGA's list-objects. */
export function searchFgaResources(
  fga: FgaDecisions,
  environmentId: string,
  request: { subject: { type: string; id: string }; action: string; resourceType: string; context: Context },
  page: SearchPage,
) {
  return found(async () => {
    const objects = await fga.listObjects(environmentId, {
      type: request.resourceType,
      relation: request.action,
      user: `${request.subject.type}:${request.subject.id}`,
      ...(request.context ? { context: request.context } : {}),
    });
    return objects.map((object) => ({ type: request.resourceType, id: object.slice(object.indexOf(':') + 1) })).sort(byId);
  }, page);
}

/** The relations of the resource's type that the subject has on it, by name. */
export function searchFgaActions(
  fga: FgaDecisions,
  environmentId: string,
  request: { subject: { type: string; id: string }; resource: { type: string; id: string }; context: Context },
  page: SearchPage,
) {
  return found(async () => {
    const relations = await fga.relations(environmentId, request.resource.type);
    const user = `${request.subject.type}:${request.subject.id}`;
    const object = `${request.resource.type}:${request.resource.id}`;
    const context = request.context ? { context: request.context } : {};
    const allowed = await Promise.all(
      relations.map((relation) =>
        fga.check(environmentId, { user, relation, object, ...context }).then(
          (r) => r.allowed,
          (error: unknown) => !refusal(error),
        ),
      ),
    );
    return relations
      .filter((_, i) => allowed[i])
      .sort()
      .map((name) => ({ name }));
  }, page);
}
