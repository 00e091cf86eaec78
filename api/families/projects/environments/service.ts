// Environments of a project: created, changed and deleted with an audit entry and an event each. The default
// environment of a project cannot be deleted, nor can the environment holding the service's operators.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import type { EventOf, EventType } from '../../../../db/event-catalog.ts';
import { createEnvironmentQueries, type EnvironmentChanges } from '../../../../db/projects/environments/queries.ts';
import { createProjectQueries } from '../../../../db/projects/projects/queries.ts';
import type { Environment, EnvironmentRecord, ProjectEnvironment } from '../../../../db/projects/projects/rows.ts';
import { conflict, orNotFound } from '../../../errors.ts';
import { storeIdOf } from '../../../../lib/fga/store-id.ts';
import { record, type CallerChange, type EnvironmentCaller, type TenantCaller } from '../../../access/caller.ts';

export const toEnvironment = (e: EnvironmentRecord): Environment => ({
  id: e.id,
  name: e.name,
  description: e.description,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
  weight: e.weight,
  isLive: e.isLive,
  isDefault: e.isDefault,
  fgaStoreId: storeIdOf(e.id),
});
export const toProjectEnvironment = ({ id, name, description, createdAt, updatedAt, weight, isLive }: EnvironmentRecord): ProjectEnvironment => ({
  id,
  name,
  description,
  createdAt,
  updatedAt,
  weight,
  isLive,
});
/** What events carry: the public shape plus the project it belongs to. */
export const environmentEventData = (e: EnvironmentRecord) => ({ ...toEnvironment(e), projectId: e.projectId });

/** The former values of the fields that changed. */
export function previousValues<T extends object>(before: T, after: T, keys: (keyof T)[]) {
  return Object.fromEntries(keys.filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k])).map((k) => [k, before[k]]));
}

/** The environment the route addresses (the scope guard checked it is the tenant's), as it is now. */
export const scopedEnvironment = (db: CommonQueryMethods, caller: EnvironmentCaller) =>
  orNotFound(createEnvironmentQueries(db, caller.scope.tenant.id).find(caller.scope.environmentId), 'environment', caller.scope.environmentId);

export interface EnvironmentInput {
  name: string;
  description?: string | null;
  weight?: number | null;
  isLive?: boolean;
}

const CHANGED: (keyof Environment)[] = ['name', 'description', 'weight', 'isLive'];

export function createEnvironmentService(pool: DatabasePool) {
  /** The project, locked when it is about to change: its set of environments is serialised on it. */
  const findProject = (db: CommonQueryMethods, caller: TenantCaller, projectId: string, lock = false) => {
    const queries = createProjectQueries(db, caller.scope.tenant.id);
    return orNotFound(lock ? queries.lockProject(projectId) : queries.findProject(projectId), 'project', projectId);
  };
  /** An environment of the project, or 404. */
  const findEnvironment = (db: CommonQueryMethods, caller: TenantCaller, projectId: string, environmentId: string) =>
    orNotFound(createEnvironmentQueries(db, caller.scope.tenant.id).find(environmentId, projectId), 'environment', environmentId);
  const checkName = async (db: CommonQueryMethods, caller: TenantCaller, projectId: string, name: string, exceptId: string | null = null) => {
    if (await createEnvironmentQueries(db, caller.scope.tenant.id).nameTaken(projectId, name, exceptId)) {
      throw conflict('environment.name_taken', `The project already has an environment named ${name}.`);
    }
  };
  const audit = <T extends EventType>(
    verb: 'create' | 'update' | 'delete',
    env: EnvironmentRecord,
    before: EnvironmentRecord | null,
    event: EventOf<T>,
  ): CallerChange<T> => ({
    action: `environment.${verb}`,
    resource: { type: 'environment', id: env.id },
    scope: { environmentId: env.id },
    before: before && toEnvironment(before),
    after: verb === 'delete' ? null : toEnvironment(env),
    event,
  });
  const mutation = (caller: TenantCaller, env: EnvironmentRecord) => ({
    tenant: { id: caller.scope.tenant.id, name: caller.scope.tenant.name },
    project: { id: env.projectId, name: env.projectName },
    environment: toEnvironment(env),
  });

  return {
    list: async (caller: TenantCaller, projectId: string) => {
      const project = await findProject(pool, caller, projectId);
      const environments = await createEnvironmentQueries(pool, caller.scope.tenant.id).findByProject(projectId);
      return { project: { id: project.id, name: project.name, type: project.type }, environments: environments.map(toEnvironment) };
    },

    create: (caller: TenantCaller, projectId: string, input: EnvironmentInput) =>
      pool.transaction(async (trx) => {
        await findProject(trx, caller, projectId, true);
        await checkName(trx, caller, projectId, input.name);
        const id = await createProjectQueries(trx, caller.scope.tenant.id).insertEnvironment({
          projectId,
          name: input.name,
          description: input.description ?? null,
          weight: input.weight ?? null,
          isLive: input.isLive ?? false,
        });
        const env = await createEnvironmentQueries(trx, caller.scope.tenant.id).byId(id);
        await record(trx, caller, audit('create', env, null, { type: 'environment.created', data: { environment: environmentEventData(env) } }));
        return mutation(caller, env);
      }),

    update: (caller: TenantCaller, projectId: string, environmentId: string, input: EnvironmentInput) =>
      pool.transaction(async (trx) => {
        await findProject(trx, caller, projectId, true);
        const before = await findEnvironment(trx, caller, projectId, environmentId);
        await checkName(trx, caller, projectId, input.name, environmentId);
        const changes: EnvironmentChanges = { name: input.name, description: input.description, weight: input.weight, isLive: input.isLive };
        const env = await createEnvironmentQueries(trx, caller.scope.tenant.id).update(environmentId, changes);
        const previous = previousValues(toEnvironment(before), toEnvironment(env), CHANGED);
        await record(trx, caller, audit('update', env, before, { type: 'environment.updated', data: { environment: environmentEventData(env), previous } }));
        return mutation(caller, env);
      }),

    remove: (caller: TenantCaller, projectId: string, environmentId: string) =>
      pool.transaction(async (trx) => {
        await findProject(trx, caller, projectId, true);
        const env = await findEnvironment(trx, caller, projectId, environmentId);
        if (env.isDefault) {
          throw conflict('environment.is_default', 'The default environment of a project cannot be deleted; make another environment the default first.');
        }
        if ((await createProjectQueries(trx, caller.scope.tenant.id).bootstrapIds()).environmentId === env.id) {
          throw conflict('environment.protected', "This environment holds the service's operators and cannot be deleted.");
        }
        await createEnvironmentQueries(trx, caller.scope.tenant.id).delete(env.id);
        await record(trx, caller, audit('delete', env, env, { type: 'environment.deleted', data: { environment: environmentEventData(env) } }));
        return mutation(caller, env);
      }),
  };
}

export type EnvironmentService = ReturnType<typeof createEnvironmentService>;
