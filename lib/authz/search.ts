// AuthZEN search: the subjects, resources or actions for which an evaluation would permit, in a stable order
// (subjects by creation, resources by id, actions by name), paged by offset into the candidates. Candidates are
// narrowed before anything is evaluated: only the subjects holding a grant with the permission (directly or
// through a group), only the listed instances when every such grant is limited to instances, every stored
// instance at once when one grant covers them all unconditionally.
import { instancesWith, permissionKey, valueKey, type AccessModel, type Grant, type ResourceType, type Subject } from './compile.ts';
import type { ResourceEquality } from './conditions.ts';
import { conditionInput, decide, evaluate, grantsOf, resolveSubject } from './evaluate.ts';
import type { ActionEntity, Entity, SearchPage, SearchResult } from './types.ts';
import { AGENT_SUBJECT_TYPES, searchAgents } from './agents.ts';
import { requestBudgetSpent } from './cel-cost.ts';

type Context = Record<string, unknown> | undefined;
const none = <T>(): SearchResult<T> => ({ results: [], nextOffset: null });

/**
 * Walks `candidates` from the page's offset, keeping those `permits` accepts, until the page is full or the request's
 * cost budget is spent: the page then ends early and the next one starts at the candidate it could not afford (past
 * it when it was the page's first, so paging always moves on).
 */
function pageThrough<C, T>(candidates: readonly C[], page: SearchPage, permits: (c: C) => T | undefined): SearchResult<T> {
  const results: T[] = [];
  let i = page.offset;
  for (; i < candidates.length && results.length < page.limit; i++) {
    const found = permits(candidates[i]!);
    if (found !== undefined) results.push(found);
    else if (requestBudgetSpent() && i > page.offset) break;
  }
  return { results, nextOffset: i < candidates.length && page.limit > 0 ? i : null };
}

const relevant = (grants: Grant[], type: ResourceType, action: string) => grants.filter((g) => g.role.permissions.has(permissionKey(type.key, action)));

export function searchResources(
  model: AccessModel,
  request: { subject: Entity; action: ActionEntity; resource: { type: string; properties?: Record<string, unknown> }; context?: Context },
  page: SearchPage,
): SearchResult<{ type: string; id: string }> {
  const subject = resolveSubject(model, request.subject);
  const type = model.types.get(request.resource.type);
  if (!subject || subject === 'unknown_type' || !subject.active || !type || !type.actionSet.has(request.action.name)) return none();
  const grants = relevant(grantsOf(model, subject), type, request.action.name);
  if (grants.length === 0) return none();
  const entity = (id: string) => ({ type: type.key, id });

  const unconditional = grants.some(
    (g) => !g.resources && !g.condition && g.role.permissions.get(permissionKey(type.key, request.action.name))!.some((p) => !p.condition),
  );
  if (unconditional) return pageThrough(type.instanceIds, page, entity);

  const candidates = candidatesOf(grants, type, request.action.name, subject, request);
  const describe = () => `${request.subject.type} "${request.subject.id}"`;
  return pageThrough(candidates, page, (id) => {
    const stored = type.instances.get(id);
    const resource = { type: type.key, id, properties: request.resource.properties };
    const input = () => conditionInput(subject, { ...request, resource }, stored, model.entitlements);
    return decide(grants, type, request.action.name, id, input, describe).decision ? entity(id) : undefined;
  });
}

/**
 * The instances that may be permitted, a superset of the answer (each is evaluated after): per grant, the instances
 * it is limited to, or those an attribute equality its conditions require looks up, or else every instance.
 */
function candidatesOf(
  grants: Grant[],
  type: ResourceType,
  action: string,
  subject: Subject,
  request: { subject: Entity; resource: { properties?: Record<string, unknown> } },
): readonly string[] {
  const permission = permissionKey(type.key, action);
  const found = new Set<string>();
  const subjectValue = (equals: ResourceEquality['equals']) =>
    'literal' in equals ? equals.literal : equals.subject === 'id' ? subject.id : (subject.properties[equals.key] ?? request.subject.properties?.[equals.key]);
  for (const grant of grants) {
    if (grant.resources) {
      for (const key of grant.resources) {
        const [keyType, id] = [key.slice(0, key.indexOf('\0')), key.slice(key.indexOf('\0') + 1)];
        if (keyType === type.key && (!type.storedInstancesOnly || type.instances.has(id))) found.add(id);
      }
      continue;
    }
    for (const held of grant.role.permissions.get(permission) ?? []) {
      // A property the request sends may fill in an attribute an instance lacks: no lookup on that attribute then.
      const equality = [...(held.condition?.equalities ?? []), ...(grant.condition?.equalities ?? [])].find(
        (e) => request.resource.properties?.[e.attribute] === undefined,
      );
      if (!equality) return type.instanceIds;
      const value = subjectValue(equality.equals);
      if (value === undefined || value === null) continue; // the condition cannot hold
      const key = valueKey(value);
      if (key === undefined) return type.instanceIds;
      for (const id of instancesWith(type, equality.attribute, key)) found.add(id);
    }
  }
  return [...found].sort();
}

export function searchSubjects(
  model: AccessModel,
  request: { subject: { type: string; properties?: Record<string, unknown> }; action: ActionEntity; resource: Entity; context?: Context },
  page: SearchPage,
): SearchResult<{ type: string; id: string }> {
  if (AGENT_SUBJECT_TYPES.has(request.subject.type)) return searchAgents(model.agents, request, page);
  const kind = resolveSubject(model, { type: request.subject.type, id: '' });
  const type = model.types.get(request.resource.type);
  if (kind === 'unknown_type' || !type || !type.actionSet.has(request.action.name)) return none();
  if (type.storedInstancesOnly && !type.instances.has(request.resource.id)) return none();
  const permission = permissionKey(type.key, request.action.name);
  const holding = (grants: Grant[] | undefined) => grants?.some((g) => g.role.permissions.has(permission)) ?? false;

  let candidates: Subject[];
  if (request.subject.type === 'group') {
    candidates = model.groups.filter((g) => holding(model.grantsByGroup.get(g.id)));
  } else {
    const found = new Set<Subject>();
    for (const [userId, grants] of model.grantsByUser) if (holding(grants)) found.add(model.usersById.get(userId)!);
    for (const [groupId, grants] of model.grantsByGroup) if (holding(grants)) for (const member of model.groupMembers.get(groupId) ?? []) found.add(member);
    for (const [userId, memberships] of model.elevatedGroups) {
      if (memberships.some((m) => holding(model.grantsByGroup.get(m.groupId)))) found.add(model.usersById.get(userId)!);
    }
    candidates = [...found].filter((u) => u?.active).sort((a, b) => a.order - b.order);
  }
  // A subject without an identifier of the environment's kind cannot be named in a request: it is no answer.
  candidates = candidates.filter((c) => c.publicId !== null);
  return pageThrough(candidates, page, (candidate) => {
    const decision = evaluate(model, {
      subject: { type: request.subject.type, id: candidate.publicId!, properties: request.subject.properties },
      action: request.action,
      resource: request.resource,
      context: request.context,
    });
    return decision.decision ? { type: request.subject.type, id: candidate.publicId! } : undefined;
  });
}

export function searchActions(
  model: AccessModel,
  request: { subject: Entity; resource: Entity; context?: Context },
  page: SearchPage,
): SearchResult<{ name: string }> {
  const type = model.types.get(request.resource.type);
  if (!type) return none();
  return pageThrough(type.actions, page, (name) =>
    evaluate(model, { subject: request.subject, action: { name }, resource: request.resource, context: request.context }).decision ? { name } : undefined,
  );
}
