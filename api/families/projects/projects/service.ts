// Projects (applications) of a tenant. A new project gets a development environment (its default) and a
// production one; deleting a project deletes its environments and everything in them, with an event for each.
import type { CommonQueryMethods, DatabasePool } from 'slonik';
import type { EventOf, EventType } from '../../../../db/event-catalog.ts';
import { projectEventData } from '../../../../db/projects/projects/events.ts';
import { recordChange, type Change } from '../../../../db/shared/changes.ts';
import { createEnvironmentQueries } from '../../../../db/projects/environments/queries.ts';
import { createProjectQueries } from '../../../../db/projects/projects/queries.ts';
import type { Project, ProjectType, TenantProject } from '../../../../db/projects/projects/rows.ts';
import type { Tenant } from '../../../../db/tenants/tenants/rows.ts';
import { conflict, invalidField, notFound } from '../../../errors.ts';
import type { Caller } from '../../../access/caller.ts';
import { environmentEventData, previousValues, toEnvironment, toProjectEnvironment } from '../environments/service.ts';
import { reachableTenant } from '../../../access/reach.ts';

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
  const find = async (db: CommonQueryMethods, caller: Caller, tenantId: string, projectId: string, lock = false) => {
    const tenant = await reachableTenant(db, caller, tenantId);
    const queries = createProjectQueries(db);
    const project = await (lock ? queries.lockProject(tenantId, projectId) : queries.findProject(tenantId, projectId));
    if (!project) throw notFound('project', projectId);
    return { tenant, project };
  };
  const environmentsOf = (db: CommonQueryMethods, projectId: string) => createEnvironmentQueries(db).findByProject(projectId);
  const withEnvironments = async (db: CommonQueryMethods, project: TenantProject): Promise<Project> => {
    return { ...project, environments: (await environmentsOf(db, project.id)).map(toProjectEnvironment) };
  };
  const change = <T extends EventType>(
    caller: Caller,
    tenant: Tenant,
    verb: string,
    project: TenantProject,
    before: TenantProject | null,
    event: EventOf<T>,
  ): Change<T> => ({
    actor: caller.actor,
    origin: caller.origin,
    action: `project.${verb}`,
    resource: { type: 'project', id: project.id },
    scope: { organizationId: tenant.organizationIds[0] ?? null, tenantId: tenant.id },
    before,
    after: verb === 'delete' ? null : project,
    event,
  });

  const create = (caller: Caller, tenantId: string, input: SaveProjectInput) =>
    pool.transaction(async (trx) => {
      const tenant = await reachableTenant(trx, caller, tenantId);
      const queries = createProjectQueries(trx);
      const id = await queries.insertProject({
        tenantId,
        name: input.name,
        type: input.type ?? 'web',
        description: input.description ?? null,
        link: input.url ?? null,
      });
      const environmentIds = [];
      for (const env of FIRST_ENVIRONMENTS) environmentIds.push(await queries.insertEnvironment({ tenantId, projectId: id, ...env }));
      await queries.setDefaultEnvironment(id, environmentIds[0]!);
      const project = await withEnvironments(trx, (await queries.findProject(tenantId, id))!);
      await recordChange(trx, change(caller, tenant, 'create', project, null, { type: 'project.created', data: { project: projectEventData(project) } }));
      for (const env of await environmentsOf(trx, id)) {
        await recordChange(trx, {
          actor: caller.actor,
          origin: caller.origin,
          action: 'environment.create',
          resource: { type: 'environment', id: env.id },
          scope: { tenantId, environmentId: env.id },
          after: toEnvironment(env),
          event: { type: 'environment.created', data: { environment: environmentEventData(env) } },
        });
      }
      return { created: true, project };
    });

  const update = (caller: Caller, tenantId: string, id: string, input: SaveProjectInput) =>
    pool.transaction(async (trx) => {
      const { tenant, project: before } = await find(trx, caller, tenantId, id, true);
      const updated = await createProjectQueries(trx).updateProject(id, {
        name: input.name,
        description: input.description,
        link: input.url,
        type: input.type,
      });
      const previous = previousValues(before, updated, ['name', 'description', 'link', 'type']);
      const project = await withEnvironments(trx, updated);
      await recordChange(
        trx,
        change(caller, tenant, 'update', updated, before, { type: 'project.updated', data: { project: projectEventData(project), previous } }),
      );
      return { created: false, project };
    });

  return {
    list: async (caller: Caller, tenantId: string, page: { limit: number; offset: number }) => {
      const tenant = await reachableTenant(pool, caller, tenantId);
      return { tenant, ...(await createProjectQueries(pool).findProjects(tenantId, page)) };
    },

    get: async (caller: Caller, tenantId: string, projectId: string) => withEnvironments(pool, (await find(pool, caller, tenantId, projectId)).project),

    /** Upsert: updates the project named by `id` (404 when the tenant has none), creates one otherwise. */
    save: (caller: Caller, tenantId: string, input: SaveProjectInput) =>
      input.id ? update(caller, tenantId, input.id, input) : create(caller, tenantId, input),

    remove: (caller: Caller, tenantId: string, projectId: string) =>
      pool.transaction(async (trx) => {
        const { tenant, project: found } = await find(trx, caller, tenantId, projectId, true);
        if ((await createProjectQueries(trx).bootstrapIds()).projectId === projectId) {
          throw conflict('project.protected', "This project holds the service's operators and cannot be deleted.");
        }
        const environments = await environmentsOf(trx, projectId);
        const project = await withEnvironments(trx, found);
        await createProjectQueries(trx).deleteProject(projectId);
        for (const env of environments) {
          await recordChange(trx, {
            actor: caller.actor,
            origin: caller.origin,
            action: 'environment.delete',
            resource: { type: 'environment', id: env.id },
            scope: { tenantId, environmentId: env.id },
            before: toEnvironment(env),
            event: { type: 'environment.deleted', data: { environment: environmentEventData(env) } },
          });
        }
        await recordChange(trx, change(caller, tenant, 'delete', found, found, { type: 'project.deleted', data: { project: projectEventData(project) } }));
        return project;
      }),

    setDefaultEnvironment: (caller: Caller, tenantId: string, projectId: string, environmentId: string) =>
      pool.transaction(async (trx) => {
        const { tenant, project: before } = await find(trx, caller, tenantId, projectId, true);
        const environment = await createEnvironmentQueries(trx).find(tenantId, environmentId, projectId);
        if (!environment) throw invalidField('body.environmentId', 'is not an environment of this project', 'project.unknown_environment');
        if (before.defaultEnvironmentId === environmentId) return withEnvironments(trx, before);
        await createProjectQueries(trx).setDefaultEnvironment(projectId, environmentId);
        const after = (await createProjectQueries(trx).findProject(tenantId, projectId))!;
        const project = await withEnvironments(trx, after);
        await recordChange(
          trx,
          change(caller, tenant, 'set_default_environment', after, before, {
            type: 'project.default_environment_set',
            data: { project: projectEventData(project), environmentId, previousEnvironmentId: before.defaultEnvironmentId },
          }),
        );
        return project;
      }),
  };
}

export type ProjectService = ReturnType<typeof createProjectService>;
