// Roles of an environment's access model: permissions (each optionally conditioned by CEL) and inheritance.
// Every change of roles holds the environment's role lock, so two concurrent edits cannot close a cycle.
import type { DatabasePool } from 'slonik';
import type { EventType } from '../../../../db/event-catalog.ts';
import { createResourceTypeQueries } from '../../../../db/access/rbac/resource-types.ts';
import { createRoleQueries, type StoredPermission } from '../../../../db/access/rbac/roles.ts';
import type { Role } from '../../../../db/access/rbac/rows.ts';
import { record, type CallerChange, type EnvironmentCaller } from '../../../access/caller.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';
import { invalidField } from '../../../errors.ts';
import { checkCondition, checkUnique, found } from './checks.ts';
import { findCycle } from './role-graph.ts';

type Db = Parameters<typeof createRoleQueries>[0];
type Verb = 'create' | 'update' | 'delete';
const EVENT_OF = { create: 'rbac.role.created', update: 'rbac.role.updated', delete: 'rbac.role.deleted' } as const satisfies Record<Verb, EventType>;

export interface PermissionInput {
  permission: string;
  condition?: string | null | undefined;
}
export interface RoleInput {
  name?: string | null | undefined;
  description?: string | null | undefined;
  permissions?: PermissionInput[] | undefined;
  inherits?: string[] | undefined;
}

const change = (verb: Verb, role: Role, before: Role | null): CallerChange => ({
  action: `rbac.role.${verb}`,
  resource: { type: 'rbac_role', id: role.id },
  before,
  after: verb === 'delete' ? null : role,
  event: { type: EVENT_OF[verb], data: { role } },
});

/** What can be checked without the database: repeats and conditions. */
function checkInput(input: RoleInput) {
  if (input.permissions) {
    checkUnique(
      input.permissions,
      (p) => (p.condition ? `${p.permission} if ${p.condition}` : p.permission),
      (i) => `body.permissions.${i}`,
    );
    input.permissions.forEach((p, i) => checkCondition(p.condition, `body.permissions.${i}.condition`));
  }
  if (input.inherits)
    checkUnique(
      input.inherits,
      (k) => k,
      (i) => `body.inherits.${i}`,
    );
}

export function createRoleService(pool: DatabasePool) {
  const env = (caller: EnvironmentCaller) => caller.scope.environmentId;
  const find = (db: Db, caller: EnvironmentCaller, key: string) => found(createRoleQueries(db, env(caller)).findRole(key), 'role', key);

  const resolvePermissions = async (db: Db, caller: EnvironmentCaller, permissions: PermissionInput[]): Promise<StoredPermission[]> => {
    const typeIds = await createResourceTypeQueries(db, env(caller)).findPermissionTypeIds(permissions.map((p) => p.permission));
    return permissions.map((p, i) => {
      const resourceTypeId = typeIds.get(p.permission);
      if (!resourceTypeId) throw invalidField(`body.permissions.${i}.permission`, `${p.permission} is not a permission of this environment`);
      return { resourceTypeId, action: p.permission.slice(p.permission.indexOf(':') + 1), condition: p.condition ?? null };
    });
  };

  /** The ids of the inherited roles, once sure they exist and close no cycle with `key`. */
  const resolveInherits = async (db: Db, caller: EnvironmentCaller, key: string, inherits: string[]) => {
    const queries = createRoleQueries(db, env(caller));
    const cycle = findCycle(await queries.findInheritance(), key, inherits);
    if (cycle) throw invalidField('body.inherits', `would form a cycle: ${cycle.join(' → ')}`, 'rbac.role_cycle');
    const ids = await queries.findRoleIds(inherits);
    return inherits.map((k, i) => {
      const id = ids.get(k);
      if (!id) throw invalidField(`body.inherits.${i}`, `${k} is not a role of this environment`);
      return id;
    });
  };

  /** Writes the permissions and inheritance the input gives (each replaces what the role had). */
  const apply = async (db: Db, caller: EnvironmentCaller, roleId: string, key: string, input: RoleInput) => {
    const queries = createRoleQueries(db, env(caller));
    if (input.permissions) await queries.replacePermissions(roleId, await resolvePermissions(db, caller, input.permissions));
    if (input.inherits) await queries.replaceInheritance(roleId, await resolveInherits(db, caller, key, input.inherits));
  };

  return {
    find: (caller: EnvironmentCaller, key: string) => find(pool, caller, key),

    list: (caller: EnvironmentCaller, query: PageQuery) => listPage('roles', query, (page) => createRoleQueries(pool, env(caller)).findRoles(page)),

    create: (caller: EnvironmentCaller, input: RoleInput & { key: string }) => {
      checkInput(input);
      return pool.transaction(async (trx) => {
        const queries = createRoleQueries(trx, env(caller));
        await queries.lockRoles();
        const id = await queries.insertRole({ key: input.key, name: input.name ?? null, description: input.description ?? null });
        await apply(trx, caller, id, input.key, input);
        const role = await find(trx, caller, input.key);
        await record(trx, caller, change('create', role, null));
        return role;
      });
    },

    update: (caller: EnvironmentCaller, key: string, input: RoleInput) => {
      checkInput(input);
      return pool.transaction(async (trx) => {
        const queries = createRoleQueries(trx, env(caller));
        await queries.lockRoles();
        const before = await find(trx, caller, key);
        await queries.updateRole(before.id, input);
        await apply(trx, caller, before.id, key, input);
        const role = await find(trx, caller, key);
        await record(trx, caller, change('update', role, before));
        return role;
      });
    },

    remove: (caller: EnvironmentCaller, key: string) =>
      pool.transaction(async (trx) => {
        await createRoleQueries(trx, env(caller)).lockRoles();
        const before = await find(trx, caller, key);
        await createRoleQueries(trx, env(caller)).deleteRole(before.id);
        await record(trx, caller, change('delete', before, before));
        return before;
      }),
  };
}

export type RoleService = ReturnType<typeof createRoleService>;
