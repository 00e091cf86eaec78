// Access evaluation over a compiled model: deny by default. A subject is permitted an action on a resource when
// one of its grants (assigned to it, or to a group it belongs to) covers the resource (no instance limit, or the
// instance is listed) and its role, or a role it inherits, holds the permission `<type>:<action>`, with the
// permission's condition and the grant's condition (when present) holding. Stored attributes win over the
// properties a request sends: a PEP fills in only what the service does not know.
import type { ConditionInput } from './conditions.ts';
import { instanceKey, permissionKey, type AccessModel, type Condition, type Elevation, type Grant, type ResourceType, type Subject } from './compile.ts';
import type { DecisionResult, Entity, EvaluationRequest, Reason } from './types.ts';
import { AGENT_SUBJECT_TYPES, evaluateAgent } from './agents.ts';
import { lookUp } from './subjects.ts';

const USER_TYPES = new Set(['user', 'identity']);

/**
 * The directory subject an AuthZEN subject names: a user (type `user` or `identity`) or a group, by the kind of
 * identifier the environment uses (model.subjectIdentifier) and no other. Under `any` (id, externalId, userName) an id
 * that names two subjects (an HRIS externalId equal to someone's userName, saved before 0026 refused it) names neither.
 */
export function resolveSubject(model: AccessModel, subject: { type: string; id: string }): Subject | 'unknown_type' | undefined {
  if (USER_TYPES.has(subject.type)) return lookUp(model.usersByIdentifier, subject.id);
  if (subject.type === 'group') return lookUp(model.groupsByIdentifier, subject.id);
  return 'unknown_type';
}

/** Every grant that applies to a subject now: its own and its groups', with the elevate grants in force. */
export function grantsOf(model: AccessModel, subject: Subject, now = Date.now()): Grant[] {
  if (subject.kind === 'group') return model.grantsByGroup.get(subject.id) ?? [];
  const own = model.grantsByUser.get(subject.id) ?? [];
  const grants = subject.groupIds.length === 0 ? own : [...own, ...subject.groupIds.flatMap((id) => model.grantsByGroup.get(id) ?? [])];
  return subject.elevated ? inForce(model, subject, grants, now) : grants;
}

const inWindow = (e: Elevation, now: number) => e.from <= now && now < e.until;

/** The grants of an elevated user in force at `now`: elevate grants within their window, and the grants of groups they make it a member of. */
function inForce(model: AccessModel, subject: Subject, grants: Grant[], now: number): Grant[] {
  const held = grants.filter((g) => !g.elevation || inWindow(g.elevation, now));
  for (const { groupId, elevation } of model.elevatedGroups.get(subject.id) ?? []) {
    if (!inWindow(elevation, now) || subject.groupIds.includes(groupId)) continue;
    for (const g of model.grantsByGroup.get(groupId) ?? []) held.push({ ...g, elevation });
  }
  return held;
}

const deny = (code: Extract<Reason, { permitted: false }>['code'], message: string): DecisionResult => ({
  decision: false,
  reason: { permitted: false, code, message },
});

const merged = (requested: Record<string, unknown> | undefined, stored: Record<string, unknown>) => (requested ? { ...requested, ...stored } : stored);

const NO_ENTITLEMENTS: Record<string, unknown> = Object.freeze({});

/**
 * What conditions see, built only when a condition is reached: `subject.id` is the directory's own id of the subject
 * (a UUID), `subject.identifier` the id requests name it by (of the environment's identifier kind, as stored), and
 * `subject.entitlements` the billing entitlements of the organization its `properties.organizationId` names (empty
 * when it names none, or one without entitlements).
 */
export function conditionInput(
  subject: Subject,
  request: {
    subject: Entity | { type: string };
    action: { name: string; properties?: Record<string, unknown> };
    resource: Entity;
    context?: Record<string, unknown>;
  },
  stored: Record<string, unknown> | undefined,
  entitlements?: ReadonlyMap<string, Record<string, unknown>>,
): ConditionInput {
  const properties = merged((request.subject as Entity).properties, subject.properties);
  const organizationId = properties.organizationId;
  return {
    subject: {
      type: request.subject.type,
      id: subject.id,
      identifier: subject.publicId,
      properties,
      entitlements: (typeof organizationId === 'string' && entitlements?.get(organizationId)) || NO_ENTITLEMENTS,
    },
    resource: { type: request.resource.type, id: request.resource.id, properties: merged(request.resource.properties, stored ?? {}) },
    action: { name: request.action.name, properties: request.action.properties ?? {} },
    context: request.context ?? {},
  };
}

type Failure = { condition: string; role: string; assignmentId: string; error?: string };

/** The conditions that did not hold, and whether one ran over its cost budget. */
type Failures = Failure[] & { costExceeded?: true };

const holds = (condition: Condition, input: () => ConditionInput, failures: Failures, grant: Grant, role: string) => {
  const result = condition.evaluate(input());
  if (result === true) return true;
  failures.push({ condition: condition.source, role, assignmentId: grant.assignmentId, ...(typeof result === 'object' ? { error: result.error } : {}) });
  if (typeof result === 'object' && result.costExceeded) failures.costExceeded = true;
  return false;
};

/**
 * Decides for a resolved subject, resource type and instance: the first grant and permission whose conditions
 * hold permits. `input` builds the condition variables on first use.
 */
export function decide(
  grants: Grant[],
  type: ResourceType,
  action: string,
  resourceId: string,
  input: () => ConditionInput,
  describe: () => string,
): DecisionResult {
  const permission = permissionKey(type.key, action);
  const failures: Failures = [];
  let covered = false;
  let memo: ConditionInput | undefined;
  const lazyInput = () => (memo ??= input());
  for (const grant of grants) {
    if (grant.resources && !grant.resources.has(instanceKey(type.key, resourceId))) continue;
    const held = grant.role.permissions.get(permission);
    if (!held) continue;
    covered = true;
    for (const p of held) {
      const conditions: string[] = [];
      if (p.condition) {
        if (!holds(p.condition, lazyInput, failures, grant, p.role)) continue;
        conditions.push(p.condition.source);
      }
      if (grant.condition) {
        if (!holds(grant.condition, lazyInput, failures, grant, grant.role.key)) continue;
        conditions.push(grant.condition.source);
      }
      return {
        decision: true,
        reason: {
          permitted: true,
          role: p.role,
          assignedRole: grant.role.key,
          assignmentId: grant.assignmentId,
          via: grant.via,
          ...(grant.elevation ? { grantId: grant.elevation.grantId } : {}),
          permission: `${type.key}:${action}`,
          conditions,
        },
      };
    }
  }
  if (!covered) return deny('no_permission', `No role of ${describe()} grants ${type.key}:${action} on this resource.`);
  return {
    decision: false,
    reason: {
      permitted: false,
      ...(failures.costExceeded
        ? {
            code: 'cost_limit_exceeded' as const,
            message: `${describe()} holds ${type.key}:${action} only under conditions whose evaluation ran over its cost limit.`,
          }
        : { code: 'condition_not_met' as const, message: `${describe()} holds ${type.key}:${action} only under conditions that did not hold.` }),
      failedConditions: [...failures],
    },
  };
}

export function evaluate(model: AccessModel, request: EvaluationRequest): DecisionResult {
  const { subject: requested, action, resource } = request;
  if (AGENT_SUBJECT_TYPES.has(requested.type)) return evaluateAgent(model.agents, request);
  const subject = resolveSubject(model, requested);
  if (subject === 'unknown_type') return deny('unknown_subject_type', `Subjects of type "${requested.type}" are not known; use user, identity or group.`);
  if (!subject) return deny('unknown_subject', `No ${requested.type} "${requested.id}" in the directory.`);
  if (!subject.active) return deny('inactive_subject', `The user "${requested.id}" is deactivated.`);
  const type = model.types.get(resource.type);
  if (!type) return deny('unknown_resource_type', `No resource type "${resource.type}".`);
  if (!type.actionSet.has(action.name)) return deny('unknown_action', `Resource type "${type.key}" has no action "${action.name}".`);
  const stored = type.instances.get(resource.id);
  if (!stored && type.storedInstancesOnly) return deny('unknown_resource', `No ${type.key} "${resource.id}" is stored.`);
  return decide(
    grantsOf(model, subject),
    type,
    action.name,
    resource.id,
    () => conditionInput(subject, request, stored, model.entitlements),
    () => `${requested.type} "${requested.id}"`,
  );
}
