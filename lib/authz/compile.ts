// Compiles an environment's stored model (./model.ts) into the indexes decisions read: subjects by id and by the
// identifier kind the environment names them by (./model.ts SubjectIdentifier); resource types with their actions and stored instances; each role's
// permissions with those of every role it inherits (transitively); grants by user and by group. Conditions are
// compiled once per distinct source text, and kept across recompilations.
import { compileCondition, type CompiledCondition, type ResourceEquality } from './conditions.ts';
import { DEFAULT_SUBJECT_IDENTIFIER, type DecisionEngine, type StoredModel, type SubjectIdentifier } from './model.ts';
import { groupKeys, publicIdOf, subjectIndex, userKeys, withDirectoryFields, type Subject, type SubjectIndex } from './subjects.ts';
import { compileAgents, type Agent } from './agents.ts';

export interface Condition {
  source: string;
  evaluate: CompiledCondition;
  /** Equalities on resource attributes the condition requires, for search to look instances up by. */
  equalities: ResourceEquality[];
}

export type { Subject } from './subjects.ts';

export interface ResourceType {
  id: string;
  key: string;
  storedInstancesOnly: boolean;
  /** Sorted. */
  actions: string[];
  actionSet: Set<string>;
  instances: Map<string, Record<string, unknown>>;
  /** Stored instance ids, sorted. */
  instanceIds: string[];
  /** Instance ids by attribute and value (valueKey), built on first use by search. */
  indexes: Map<string, Map<string, string[]>>;
}

/** A permission a role holds, directly (`role` = itself) or through inheritance (`role` = the inherited one). */
export interface HeldPermission {
  role: string;
  condition: Condition | null;
}

export interface Role {
  id: string;
  key: string;
  /** `<type key>\0<action>` → the permissions matching it, its own first. */
  permissions: Map<string, HeldPermission[]>;
}

export interface Grant {
  assignmentId: string;
  role: Role;
  via: { type: 'user' | 'group'; id: string };
  /** `<type key>\0<id>` of the instances the grant is limited to; null = every instance. */
  resources: Set<string> | null;
  condition: Condition | null;
  /** An elevate grant: in force from `from` until `until` (ms since the epoch) only. */
  elevation?: Elevation;
}

export interface Elevation {
  grantId: string;
  from: number;
  until: number;
}

export interface AccessModel {
  readonly environmentId: string;
  users: Subject[];
  usersById: Map<string, Subject>;
  groups: Subject[];
  groupsById: Map<string, Subject>;
  /** The kind of identifier requests name subjects by, and the subjects by its keys (./subjects.ts lookUp); no other lookup. */
  subjectIdentifier: SubjectIdentifier;
  usersByIdentifier: SubjectIndex;
  groupsByIdentifier: SubjectIndex;
  groupMembers: Map<string, Subject[]>;
  types: Map<string, ResourceType>;
  grantsByUser: Map<string, Grant[]>;
  grantsByGroup: Map<string, Grant[]>;
  /** Trust-store entries by subject (non-human subjects). */
  agents: Map<string, Agent>;
  /** Group memberships elevate grants give, by user. */
  elevatedGroups: Map<string, { groupId: string; elevation: Elevation }[]>;
  /** Resource types whose decision engine is set explicitly (the AuthZEN settings). */
  resourceTypeEngines: ReadonlyMap<string, DecisionEngine>;
  /** Billing entitlements by organization id: conditions see them as `subject.entitlements` (./evaluate.ts). */
  entitlements?: ReadonlyMap<string, Record<string, unknown>>;
}

export const permissionKey = (type: string, action: string) => `${type}\0${action}`;
export const instanceKey = permissionKey;

const CONDITION_CACHE_MAX = 10_000;
const conditionCache = new Map<string, Condition>();

/** The compiled condition of a source saved earlier (validated then); one that no longer compiles never holds. */
function conditionOf(source: string | null): Condition | null {
  if (source === null) return null;
  const cached = conditionCache.get(source);
  if (cached) return cached;
  const compiled = compileCondition(source);
  const message = compiled.ok ? '' : `The condition does not compile: ${compiled.error.message}`;
  const condition: Condition = compiled.ok
    ? { source, evaluate: compiled.evaluate, equalities: compiled.equalities }
    : { source, evaluate: () => ({ error: message }), equalities: [] };
  if (conditionCache.size >= CONDITION_CACHE_MAX) conditionCache.delete(conditionCache.keys().next().value as string);
  conditionCache.set(source, condition);
  return condition;
}

const push = <K, V>(map: Map<K, V[]>, key: K, value: V) => {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
};

export function compileModel(environmentId: string, stored: StoredModel): AccessModel {
  const kind = stored.subjectIdentifier ?? DEFAULT_SUBJECT_IDENTIFIER;
  const groupKeyList = stored.groups.map((g) => groupKeys(kind, g));
  const userKeyList = stored.users.map((u) => userKeys(kind, u));
  const groups: Subject[] = stored.groups.map((g, order) => ({
    kind: 'group',
    id: g.id,
    publicId: publicIdOf(kind, groupKeyList[order]!),
    active: true,
    properties: withDirectoryFields(g.attributes, { name: g.name, externalId: g.externalId }),
    groupIds: [],
    order,
  }));
  const groupsById = new Map(groups.map((g) => [g.id, g]));
  const groupNames = new Map(stored.groups.map((g) => [g.id, g.name]));

  const users: Subject[] = stored.users.map((u, order) => ({
    kind: 'user',
    id: u.id,
    publicId: publicIdOf(kind, userKeyList[order]!),
    active: u.active,
    properties: withDirectoryFields(u.attributes, {
      userName: u.userName,
      externalId: u.externalId,
      displayName: u.displayName,
      email: u.emails[0] ?? null,
      emails: u.emails,
      groups: u.groupIds.map((id) => groupNames.get(id)).filter((name): name is string => name !== undefined),
    }),
    groupIds: u.groupIds,
    order,
  }));
  const groupMembers = new Map<string, Subject[]>();
  for (const user of users) for (const groupId of user.groupIds) push(groupMembers, groupId, user);

  const types = new Map<string, ResourceType>();
  const typeKeys = new Map<string, string>();
  for (const t of stored.resourceTypes) {
    typeKeys.set(t.id, t.key);
    types.set(t.key, {
      id: t.id,
      key: t.key,
      storedInstancesOnly: t.storedInstancesOnly,
      actions: [...t.actions].sort(),
      actionSet: new Set(t.actions),
      instances: new Map(),
      instanceIds: [],
      indexes: new Map(),
    });
  }
  for (const r of stored.resources) {
    const type = types.get(typeKeys.get(r.typeId) ?? '');
    if (!type) continue;
    type.instances.set(r.id, r.attributes);
    type.instanceIds.push(r.id);
  }
  for (const type of types.values()) type.instanceIds.sort();

  const roles = compileRoles(stored, typeKeys);

  const grantsByUser = new Map<string, Grant[]>();
  const grantsByGroup = new Map<string, Grant[]>();
  for (const a of stored.assignments) {
    const role = roles.get(a.roleId);
    if (!role) continue;
    const via = a.userId ? { type: 'user' as const, id: a.userId } : { type: 'group' as const, id: a.groupId! };
    const grant: Grant = {
      assignmentId: a.id,
      role,
      via,
      resources: a.resources ? new Set(a.resources.map((r) => instanceKey(r.type, r.id))) : null,
      condition: conditionOf(a.condition),
    };
    push(via.type === 'user' ? grantsByUser : grantsByGroup, via.id, grant);
  }

  const elevatedGroups = compileElevations(stored, roles, users, grantsByUser);

  // Build, with the model, the attribute indexes search will look instances up by, so no search pays for one.
  const attributes = new Set<string>();
  const noteEqualities = (c: Condition | null) => c?.equalities.forEach((e) => attributes.add(e.attribute));
  for (const role of roles.values()) for (const held of role.permissions.values()) held.forEach((h) => noteEqualities(h.condition));
  for (const grants of [...grantsByUser.values(), ...grantsByGroup.values()]) grants.forEach((g) => noteEqualities(g.condition));
  for (const type of types.values()) for (const attribute of attributes) instancesWith(type, attribute, '');

  return {
    environmentId,
    users,
    usersById: new Map(users.map((u) => [u.id, u])),
    groups,
    groupsById,
    subjectIdentifier: kind,
    usersByIdentifier: subjectIndex(users, (u) => userKeyList[u.order]!),
    groupsByIdentifier: subjectIndex(groups, (g) => groupKeyList[g.order]!),
    groupMembers,
    types,
    grantsByUser,
    grantsByGroup,
    agents: compileAgents(stored.agents),
    elevatedGroups,
    resourceTypeEngines: new Map(Object.entries(stored.resourceTypeEngines ?? {})),
    entitlements: new Map(Object.entries(stored.entitlements ?? {})),
  };
}

/** Adds the role grants of elevate grants to `grantsByUser`; returns the memberships they give, by user. */
function compileElevations(stored: StoredModel, roles: Map<string, Role>, users: Subject[], grantsByUser: Map<string, Grant[]>) {
  const elevatedGroups = new Map<string, { groupId: string; elevation: Elevation }[]>();
  if (!stored.elevations?.length) return elevatedGroups;
  const usersById = new Map(users.map((u) => [u.id, u]));
  for (const e of stored.elevations) {
    const user = usersById.get(e.userId);
    if (!user) continue;
    const elevation = { grantId: e.grantId, from: e.from, until: e.until };
    if (e.groupId !== null) {
      push(elevatedGroups, e.userId, { groupId: e.groupId, elevation });
    } else {
      const role = roles.get(e.roleId ?? '');
      if (!role) continue;
      const resources = e.resources ? new Set(e.resources.map((r) => instanceKey(r.type, r.id))) : null;
      push(grantsByUser, e.userId, { assignmentId: e.grantId, role, via: { type: 'user', id: e.userId }, resources, condition: null, elevation });
    }
    user.elevated = true;
  }
  return elevatedGroups;
}

/** Each role with its own permissions and those of every role it inherits, transitively (cycles are refused on save; tolerated here). */
function compileRoles(stored: StoredModel, typeKeys: Map<string, string>): Map<string, Role> {
  const byId = new Map(stored.roles.map((r) => [r.id, r]));
  const roles = new Map<string, Role>();
  for (const role of stored.roles) {
    const permissions = new Map<string, HeldPermission[]>();
    const seen = new Set<string>();
    const queue = [role.id];
    while (queue.length > 0) {
      const current = byId.get(queue.shift()!);
      if (!current || seen.has(current.id)) continue;
      seen.add(current.id);
      for (const p of current.permissions) {
        const type = typeKeys.get(p.typeId);
        if (type !== undefined) push(permissions, permissionKey(type, p.action), { role: current.key, condition: conditionOf(p.condition) });
      }
      queue.push(...current.inherits);
    }
    roles.set(role.id, { id: role.id, key: role.key, permissions });
  }
  return roles;
}

/** How attribute values are keyed in an index: scalars only (CEL compares int and double by value). */
export function valueKey(value: unknown): string | undefined {
  if (typeof value === 'string') return `s${value}`;
  if (typeof value === 'number' || typeof value === 'bigint') return `n${Number(value)}`;
  if (typeof value === 'boolean') return `b${value}`;
  return undefined;
}

/** The ids of the stored instances of a type whose `attribute` has the value of `key` (sorted); built once per attribute. */
export function instancesWith(type: ResourceType, attribute: string, key: string): string[] {
  let index = type.indexes.get(attribute);
  if (!index) {
    index = new Map();
    for (const id of type.instanceIds) {
      const k = valueKey(type.instances.get(id)![attribute]);
      if (k !== undefined) push(index, k, id);
    }
    type.indexes.set(attribute, index);
  }
  return index.get(key) ?? [];
}
