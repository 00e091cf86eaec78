// Projects (applications) of a tenant. A new project gets a development environment (its default) and a
// production one; deleting a project deletes its environments and everything in them, with an event for each.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import type { EventOf, EventType } from '../../../../db/event-catalog.ts';
import { projectEventData } from '../../../../db/projects/projects/events.ts';
import { createEnvironmentQueries } from '../../../../db/projects/environments/queries.ts';
import { createProjectQueries } from '../../../../db/projects/projects/queries.ts';
import type { Project, ProjectType, TenantProject } from '../../../../db/projects/projects/rows.ts';
import { conflict, invalidField, orNotFound } from '../../../errors.ts';
import { record, type CallerChange, type TenantCaller } from '../../../access/caller.ts';
import { environmentEventData, previousValues, toEnvironment, toProjectEnvironment } from '../environments/service.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';

export interface SaveProjectInput {
  id?: string;
  name: string;
  description?: string | null;
  url?: string | null;
  type?: ProjectType;
}

const FIRST_ENVIRONMENTS = [
  { name: 'development', isLive: false, weight: 0 },
  { name: 'production', isLive: true, weight: 1 },
];

export function createProjectService(pool: DatabasePool) {
  /** A project of the tenant (404 otherwise), locked when it is about to change. */
  const find = (db: CommonQueryMethods, caller: TenantCaller, projectId: string, lock = false) => {
    const queries = createProjectQueries(db, caller.scope.tenant.id);
    return orNotFound(lock ? queries.lockProject(projectId) : queries.findProject(projectId), 'project', projectId);
  };
  const environmentsOf = (db: CommonQueryMethods, tenantId: string, projectId: string) => createEnvironmentQueries(db, tenantId).findByProject(projectId);
  const withEnvironments = async (db: CommonQueryMethods, tenantId: string, project: TenantProject): Promise<Project> => {
    return { ...project, environments: (await environmentsOf(db, tenantId, project.id)).map(toProjectEnvironment) };
  };
  const change = <T extends EventType>(verb: string, project: TenantProject, before: TenantProject | null, event: EventOf<T>): CallerChange<T> => ({
    action: `project.${verb}`,
    resource: { type: 'project', id: project.id },
    before,
    after: verb === 'delete' ? null : project,
    event,
  });

  const create = (caller: TenantCaller, input: SaveProjectInput) =>
    pool.transaction(async (trx) => {
      const tenantId = caller.scope.tenant.id;
      const queries = createProjectQueries(trx, tenantId);
      const id = await queries.insertProject({
        name: input.name,
        type: input.type ?? 'web',
        description: input.description ?? null,
        link: input.url ?? null,
      });
      const environmentIds = [];
      for (const env of FIRST_ENVIRONMENTS) environmentIds.push(await queries.insertEnvironment({ projectId: id, ...env }));
      await queries.setDefaultEnvironment(id, environmentIds[0]!);
      const project = await withEnvironments(trx, caller.scope.tenant.id, (await queries.findProject(id))!);
      await record(trx, caller, change('create', project, null, { type: 'project.created', data: { project: projectEventData(project) } }));
      for (const env of await environmentsOf(trx, tenantId, id)) {
        await record(trx, caller, {
          action: 'environment.create',
          resource: { type: 'environment', id: env.id },
          scope: { environmentId: env.id },
          after: toEnvironment(env),
          event: { type: 'environment.created', data: { environment: environmentEventData(env) } },
        });
      }
      return { created: true, project };
    });

  const update = (caller: TenantCaller, id: string, input: SaveProjectInput) =>
    pool.transaction(async (trx) => {
      const before = await find(trx, caller, id, true);
      const updated = await createProjectQueries(trx, caller.scope.tenant.id).updateProject(id, {
        name: input.name,
        description: input.description,
        link: input.url,
        type: input.type,
      });
      const previous = previousValues(before, updated, ['name', 'description', 'link', 'type']);
      const project = await withEnvironments(trx, caller.scope.tenant.id, updated);
      await record(trx, caller, change('update', updated, before, { type: 'project.updated', data: { project: projectEventData(project), previous } }));
      return { created: false, project };
    });

  return {
    list: async (caller: TenantCaller, query: PageQuery) => ({
      tenant: caller.scope.tenant,
      ...(await listPage('projects', query, (page) => createProjectQueries(pool, caller.scope.tenant.id).findProjects(page))),
    }),

    get: async (caller: TenantCaller, projectId: string) => withEnvironments(pool, caller.scope.tenant.id, await find(pool, caller, projectId)),

    /** Upsert: updates the project named by `id` (404 when the tenant has none), creates one otherwise. */
    save: (caller: TenantCaller, input: SaveProjectInput) => (input.id ? update(caller, input.id, input) : create(caller, input)),

    remove: (caller: TenantCaller, projectId: string) =>
      pool.transaction(async (trx) => {
        const found = await find(trx, caller, projectId, true);
        if ((await createProjectQueries(trx, caller.scope.tenant.id).bootstrapIds()).projectId === projectId) {
          throw conflict('project.protected', "This project holds the service's operators and cannot be deleted.");
        }
        const environments = await environmentsOf(trx, caller.scope.tenant.id, projectId);
        const project = await withEnvironments(trx, caller.scope.tenant.id, found);
        await createProjectQueries(trx, caller.scope.tenant.id).deleteProject(projectId);
        for (const env of environments) {
          await record(trx, caller, {
            action: 'environment.delete',
            resource: { type: 'environment', id: env.id },
            scope: { environmentId: env.id },
            before: toEnvironment(env),
            event: { type: 'environment.deleted', data: { environment: environmentEventData(env) } },
          });
        }
        await record(trx, caller, change('delete', found, found, { type: 'project.deleted', data: { project: projectEventData(project) } }));
        return project;
      }),

    setDefaultEnvironment: (caller: TenantCaller, projectId: string, environmentId: string) =>
      pool.transaction(async (trx) => {
        const tenantId = caller.scope.tenant.id;
        const before = await find(trx, caller, projectId, true);
        const environment = await createEnvironmentQueries(trx, tenantId).find(environmentId, projectId);
        if (!environment) throw invalidField('body.environmentId', 'is not an environment of this project', 'project.unknown_environment');
        if (before.defaultEnvironmentId === environmentId) return withEnvironments(trx, caller.scope.tenant.id, before);
        await createProjectQueries(trx, tenantId).setDefaultEnvironment(projectId, environmentId);
        const after = (await createProjectQueries(trx, tenantId).findProject(projectId))!;
        const project = await withEnvironments(trx, caller.scope.tenant.id, after);
        await record(
          trx,
          caller,
          change('set_default_environment', after, before, {
            type: 'project.default_environment_set',
            data: { project: projectEventData(project), environmentId, previousEnvironmentId: before.defaultEnvironmentId },
          }),
        );
        return project;
      }),
  };
}

export type ProjectService = ReturnType<typeof createProjectService>;
