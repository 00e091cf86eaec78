// Resource types of an environment's access model and their actions (a permission is an action on a type).
import type { DatabasePool } from 'slonik';
import type { EventType } from '../../../../db/event-catalog.ts';
import { createResourceTypeQueries, type ActionInput, type ResourceTypeChanges } from '../../../../db/access/rbac/resource-types.ts';
import type { ResourceType } from '../../../../db/access/rbac/rows.ts';
import { record, type CallerChange, type EnvironmentCaller } from '../../../access/caller.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';
import { checkUnique, found, missing } from './checks.ts';

type Db = Parameters<typeof createResourceTypeQueries>[0];
type Verb = 'create' | 'update' | 'delete';
const EVENT_OF = {
  create: 'rbac.resource_type.created',
  update: 'rbac.resource_type.updated',
  delete: 'rbac.resource_type.deleted',
} as const satisfies Record<Verb, EventType>;

const change = (verb: Verb, resourceType: ResourceType, before: ResourceType | null): CallerChange => ({
  action: `rbac.resource_type.${verb}`,
  resource: { type: 'rbac_resource_type', id: resourceType.id },
  before,
  after: verb === 'delete' ? null : resourceType,
  event: { type: EVENT_OF[verb], data: { resourceType } },
});

const checkActions = (actions: ActionInput[] | undefined) =>
  actions &&
  checkUnique(
    actions,
    (a) => a.name,
    (i) => `body.actions.${i}.name`,
  );

export function createResourceTypeService(pool: DatabasePool) {
  const env = (caller: EnvironmentCaller) => caller.scope.environmentId;
  const find = (db: Db, caller: EnvironmentCaller, key: string, lock?: 'update') =>
    found(createResourceTypeQueries(db, env(caller)).findResourceType(key, lock), 'resource_type', key);

  /** Locks the type, applies `apply`, and records the update (`touch`: its updated_at moves). */
  const update = (caller: EnvironmentCaller, key: string, apply: (db: Db, before: ResourceType) => Promise<void>) =>
    pool.transaction(async (trx) => {
      const before = await find(trx, caller, key, 'update');
      await apply(trx, before);
      await createResourceTypeQueries(trx, env(caller)).touch(before.id);
      const resourceType = await find(trx, caller, key);
      await record(trx, caller, change('update', resourceType, before));
      return resourceType;
    });

  return {
    find: (caller: EnvironmentCaller, key: string) => find(pool, caller, key),

    list: (caller: EnvironmentCaller, query: PageQuery) =>
      listPage('resourceTypes', query, (page) => createResourceTypeQueries(pool, env(caller)).findResourceTypes(page)),

    permissions: (caller: EnvironmentCaller, query: PageQuery) =>
      listPage('permissions', query, (page) => createResourceTypeQueries(pool, env(caller)).findPermissions(page)),

    create: (
      caller: EnvironmentCaller,
      input: { key: string; name?: string | null; description?: string | null; storedInstancesOnly: boolean; actions: ActionInput[] },
    ) => {
      checkActions(input.actions);
      return pool.transaction(async (trx) => {
        const queries = createResourceTypeQueries(trx, env(caller));
        const id = await queries.insertResourceType({
          key: input.key,
          name: input.name ?? null,
          description: input.description ?? null,
          storedInstancesOnly: input.storedInstancesOnly,
        });
        if (input.actions.length > 0) await queries.upsertActions(id, input.actions);
        const resourceType = await find(trx, caller, input.key);
        await record(trx, caller, change('create', resourceType, null));
        return resourceType;
      });
    },

    update: (caller: EnvironmentCaller, key: string, changes: ResourceTypeChanges & { actions?: ActionInput[] | undefined }) => {
      checkActions(changes.actions);
      return update(caller, key, async (trx, before) => {
        const queries = createResourceTypeQueries(trx, env(caller));
        await queries.updateResourceType(before.id, changes);
        if (!changes.actions) return;
        // Removing an action drops the role permissions on it (foreign key cascade).
        await queries.deleteActionsExcept(
          before.id,
          changes.actions.map((a) => a.name),
        );
        if (changes.actions.length > 0) await queries.upsertActions(before.id, changes.actions);
      });
    },

    remove: (caller: EnvironmentCaller, key: string) =>
      pool.transaction(async (trx) => {
        const before = await find(trx, caller, key, 'update');
        await createResourceTypeQueries(trx, env(caller)).deleteResourceType(before.id);
        await record(trx, caller, change('delete', before, before));
        return before;
      }),

    /** Adds or updates one action; `added` tells which. */
    putAction: async (caller: EnvironmentCaller, key: string, action: ActionInput) => {
      let added = false;
      const resourceType = await update(caller, key, async (trx, before) => {
        added = await createResourceTypeQueries(trx, env(caller)).upsertAction(before.id, action);
      });
      return { resourceType, added };
    },

    removeAction: (caller: EnvironmentCaller, key: string, name: string) =>
      update(caller, key, async (trx, before) => {
        if (!(await createResourceTypeQueries(trx, env(caller)).deleteAction(before.id, name))) throw missing('action', `${key}:${name}`);
      }),
  };
}

export type ResourceTypeService = ReturnType<typeof createResourceTypeService>;
