// Environments of a project: created, changed and deleted with an audit entry and an event each. The default
// environment of a project cannot be deleted, nor can the environment holding the service's operators.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import type { EventOf, EventType } from '../../../../db/event-catalog.ts';
import { recordChange } from '../../../../db/shared/changes.ts';
import { createEnvironmentQueries, type EnvironmentChanges } from '../../../../db/projects/environments/queries.ts';
import { createProjectQueries } from '../../../../db/projects/projects/queries.ts';
import type { Environment, EnvironmentRecord, ProjectEnvironment } from '../../../../db/projects/projects/rows.ts';
import { conflict, notFound } from '../../../errors.ts';
import type { Caller } from '../../../access/caller.ts';
import { reachableTenant } from '../../../access/reach.ts';

export const toEnvironment = (e: EnvironmentRecord): Environment => ({
  id: e.id,
  name: e.name,
  description: e.description,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
  weight: e.weight,
  isLive: e.isLive,
  isDefault: e.isDefault,
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

/** An environment of a tenant the caller reaches, optionally of one project; 404 otherwise. */
export async function reachableEnvironment(db: CommonQueryMethods, caller: Caller, tenantId: string, environmentId: string, projectId?: string) {
  const tenant = await reachableTenant(db, caller, tenantId);
  const environment = await createEnvironmentQueries(db).find(tenantId, environmentId, projectId);
  if (!environment) throw notFound('environment', environmentId);
  return { tenant, environment };
}

export interface EnvironmentInput {
  name: string;
  description?: string | null;
  weight?: number | null;
  isLive?: boolean;
}

const CHANGED: (keyof Environment)[] = ['name', 'description', 'weight', 'isLive'];

export function createEnvironmentService(pool: DatabasePool) {
  /** The project, locked when it is about to change: its set of environments is serialised on it. */
  const findProject = async (db: CommonQueryMethods, caller: Caller, tenantId: string, projectId: string, lock = false) => {
    const tenant = await reachableTenant(db, caller, tenantId);
    const queries = createProjectQueries(db);
    const project = await (lock ? queries.lockProject(tenantId, projectId) : queries.findProject(tenantId, projectId));
    if (!project) throw notFound('project', projectId);
    return { tenant, project };
  };
  const checkName = async (db: CommonQueryMethods, projectId: string, name: string, exceptId: string | null = null) => {
    if (await createEnvironmentQueries(db).nameTaken(projectId, name, exceptId)) {
      throw conflict('environment.name_taken', `The project already has an environment named ${name}.`);
    }
  };
  const audit = <T extends EventType>(
    caller: Caller,
    verb: 'create' | 'update' | 'delete',
    env: EnvironmentRecord,
    before: EnvironmentRecord | null,
    event: EventOf<T>,
  ) => ({
    actor: caller.actor,
    origin: caller.origin,
    action: `environment.${verb}`,
    resource: { type: 'environment', id: env.id },
    scope: { tenantId: env.tenantId, environmentId: env.id },
    before: before && toEnvironment(before),
    after: verb === 'delete' ? null : toEnvironment(env),
    event,
  });
  const mutation = (tenant: { id: string; name: string }, env: EnvironmentRecord) => ({
    tenant: { id: tenant.id, name: tenant.name },
    project: { id: env.projectId, name: env.projectName },
    environment: toEnvironment(env),
  });

  return {
    list: async (caller: Caller, tenantId: string, projectId: string) => {
      const { project } = await findProject(pool, caller, tenantId, projectId);
      const environments = await createEnvironmentQueries(pool).findByProject(projectId);
      return { project: { id: project.id, name: project.name, type: project.type }, environments: environments.map(toEnvironment) };
    },

    create: (caller: Caller, tenantId: string, projectId: string, input: EnvironmentInput) =>
      pool.transaction(async (trx) => {
        const { tenant } = await findProject(trx, caller, tenantId, projectId, true);
        await checkName(trx, projectId, input.name);
        const id = await createProjectQueries(trx).insertEnvironment({
          tenantId,
          projectId,
          name: input.name,
          description: input.description ?? null,
          weight: input.weight ?? null,
          isLive: input.isLive ?? false,
        });
        const env = await createEnvironmentQueries(trx).byId(id);
        await recordChange(trx, audit(caller, 'create', env, null, { type: 'environment.created', data: { environment: environmentEventData(env) } }));
        return mutation(tenant, env);
      }),

    update: (caller: Caller, tenantId: string, projectId: string, environmentId: string, input: EnvironmentInput) =>
      pool.transaction(async (trx) => {
        const { tenant } = await findProject(trx, caller, tenantId, projectId, true);
        const { environment: before } = await reachableEnvironment(trx, caller, tenantId, environmentId, projectId);
        await checkName(trx, projectId, input.name, environmentId);
        const changes: EnvironmentChanges = { name: input.name, description: input.description, weight: input.weight, isLive: input.isLive };
        const env = await createEnvironmentQueries(trx).update(environmentId, changes);
        const previous = previousValues(toEnvironment(before), toEnvironment(env), CHANGED);
        await recordChange(
          trx,
          audit(caller, 'update', env, before, { type: 'environment.updated', data: { environment: environmentEventData(env), previous } }),
        );
        return mutation(tenant, env);
      }),

    remove: (caller: Caller, tenantId: string, projectId: string, environmentId: string) =>
      pool.transaction(async (trx) => {
        const { tenant } = await findProject(trx, caller, tenantId, projectId, true);
        const { environment: env } = await reachableEnvironment(trx, caller, tenantId, environmentId, projectId);
        if (env.isDefault) {
          throw conflict('environment.is_default', 'The default environment of a project cannot be deleted; make another environment the default first.');
        }
        if ((await createProjectQueries(trx).bootstrapIds()).environmentId === env.id) {
          throw conflict('environment.protected', "This environment holds the service's operators and cannot be deleted.");
        }
        await createEnvironmentQueries(trx).delete(env.id);
        await recordChange(trx, audit(caller, 'delete', env, env, { type: 'environment.deleted', data: { environment: environmentEventData(env) } }));
        return mutation(tenant, env);
      }),
  };
}

export type EnvironmentService = ReturnType<typeof createEnvironmentService>;
