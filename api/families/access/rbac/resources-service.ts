// Stored resource instances of an environment's access model: ids the client chose, with attributes that
// conditions read as `resource.properties`.
import type { DatabasePool } from 'slonik';
import type { EventType } from '../../../../db/event-catalog.ts';
import { createResourceQueries } from '../../../../db/access/rbac/resources.ts';
import { createResourceTypeQueries } from '../../../../db/access/rbac/resource-types.ts';
import type { Resource } from '../../../../db/access/rbac/rows.ts';
import { record, type CallerChange, type EnvironmentCaller } from '../../../access/caller.ts';
import { keysetPage } from '../../../common/schemas.ts';
import { checkUnique, found } from './checks.ts';
import { encodeResourceCursor } from './schemas.ts';

type Db = Parameters<typeof createResourceQueries>[0];
type Verb = 'create' | 'update' | 'delete';
const EVENT_OF = {
  create: 'rbac.resource.created',
  update: 'rbac.resource.updated',
  delete: 'rbac.resource.deleted',
} as const satisfies Record<Verb, EventType>;
type Attributes = Record<string, unknown>;

const change = (verb: Verb, resource: Resource, before: Resource | null): CallerChange => ({
  action: `rbac.resource.${verb}`,
  resource: { type: 'rbac_resource', id: `${resource.type}:${resource.id}` },
  before,
  after: verb === 'delete' ? null : resource,
  event: { type: EVENT_OF[verb], data: { resource } },
});

export function createResourceService(pool: DatabasePool) {
  const env = (caller: EnvironmentCaller) => caller.scope.environmentId;
  const typeOf = (db: Db, caller: EnvironmentCaller, type: string, lock?: 'share') =>
    found(createResourceTypeQueries(db, env(caller)).findResourceType(type, lock), 'resource_type', type);
  const find = async (db: Db, caller: EnvironmentCaller, type: string, id: string) =>
    found(createResourceQueries(db, env(caller)).findResource((await typeOf(db, caller, type)).id, id), 'resource', `${type}:${id}`);

  return {
    find: (caller: EnvironmentCaller, type: string, id: string) => find(pool, caller, type, id),

    list: async (caller: EnvironmentCaller, type: string, query: { limit: number; cursor?: string | undefined; idPrefix?: string | undefined }) => {
      const { id: typeId } = await typeOf(pool, caller, type);
      const rows = await createResourceQueries(pool, env(caller)).findResources(typeId, {
        limit: query.limit + 1,
        after: query.cursor,
        idPrefix: query.idPrefix,
      });
      return keysetPage('resources', [...rows], query.limit, encodeResourceCursor);
    },

    /** Stores or replaces one resource; `created` tells which. */
    put: (caller: EnvironmentCaller, type: string, id: string, attributes: Attributes) =>
      pool.transaction(async (trx) => {
        const { id: typeId } = await typeOf(trx, caller, type, 'share');
        const before = await createResourceQueries(trx, env(caller)).findResource(typeId, id);
        const { created, ...resource } = await createResourceQueries(trx, env(caller)).upsertResource(typeId, id, attributes);
        await record(trx, caller, change(created ? 'create' : 'update', resource, before));
        return { resource, created };
      }),

    remove: (caller: EnvironmentCaller, type: string, id: string) =>
      pool.transaction(async (trx) => {
        const { id: typeId } = await typeOf(trx, caller, type);
        const before = await found(createResourceQueries(trx, env(caller)).findResource(typeId, id), 'resource', `${type}:${id}`);
        await createResourceQueries(trx, env(caller)).deleteResource(typeId, id);
        await record(trx, caller, change('delete', before, before));
        return before;
      }),

    /** Stores or replaces up to 1000 resources of one type at once: one audit entry and one event for all of them. */
    upsertMany: (caller: EnvironmentCaller, type: string, resources: { id: string; attributes: Attributes }[]) => {
      checkUnique(
        resources,
        (r) => r.id,
        (i) => `body.resources.${i}.id`,
      );
      return pool.transaction(async (trx) => {
        const resourceType = await typeOf(trx, caller, type, 'share');
        await createResourceQueries(trx, env(caller)).upsertResources(resourceType.id, resources);
        const ids = resources.map((r) => r.id);
        await record(trx, caller, {
          action: 'rbac.resources.upsert',
          resource: { type: 'rbac_resource_type', id: resourceType.id },
          after: { type, count: ids.length, ids },
          event: { type: 'rbac.resources.upserted', data: { type, count: ids.length, ids } },
        });
        return { upserted: ids.length };
      });
    },
  };
}

export type ResourceService = ReturnType<typeof createResourceService>;
