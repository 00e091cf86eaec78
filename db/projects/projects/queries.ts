import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { TenantProject, type ProjectType } from './rows.ts';
import { selectPage, type PageRequest } from '../../shared/pages.ts';

const Id = z.object({ id: z.uuid() });

const columns = sql.fragment`
  p.id, p.name, p.type, p.link, p.description, p.logo_uri AS "logoUri", p.created_at AS "createdAt", p.updated_at AS "updatedAt",
  p.default_environment_id AS "defaultEnvironmentId"`;

export interface ProjectChanges {
  name?: string;
  type?: ProjectType;
  link?: string | null;
  description?: string | null;
}

const COLUMN: Record<keyof ProjectChanges, string> = { name: 'name', type: 'type', link: 'link', description: 'description' };

export function createProjectQueries(db: CommonQueryMethods, tenantId: string) {
  return {
    insertProject: (project: { name: string; type: ProjectType; description?: string | null; link?: string | null }) =>
      db.oneFirst(sql.type(Id)`
        INSERT INTO projects (tenant_id, name, type, description, link)
        VALUES (${tenantId}, ${project.name}, ${project.type}, ${project.description ?? null}, ${project.link ?? null}) RETURNING id`),

    insertEnvironment: (env: { projectId: string; name: string; isLive: boolean; weight?: number | null; description?: string | null }) =>
      db.oneFirst(sql.type(Id)`
        INSERT INTO environments (tenant_id, project_id, name, is_live, weight, description)
        VALUES (${tenantId}, ${env.projectId}, ${env.name}, ${env.isLive}, ${env.weight ?? null}, ${env.description ?? null}) RETURNING id`),

    setDefaultEnvironment: (projectId: string, environmentId: string) =>
      db.query(
        sql.unsafe`UPDATE projects SET default_environment_id = ${environmentId}, updated_at = now() WHERE tenant_id = ${tenantId} AND id = ${projectId}`,
      ),

    findProjects: (page: PageRequest) =>
      selectPage(db, TenantProject, sql.fragment`SELECT ${columns} FROM projects p WHERE p.tenant_id = ${tenantId}`, sql.fragment`p.created_at, p.id`, page),

    findProject: (id: string) => db.maybeOne(sql.type(TenantProject)`SELECT ${columns} FROM projects p WHERE p.id = ${id} AND p.tenant_id = ${tenantId}`),

    /** Serialises changes to a project and to its set of environments. */
    lockProject: (id: string) =>
      db.maybeOne(sql.type(TenantProject)`SELECT ${columns} FROM projects p WHERE p.id = ${id} AND p.tenant_id = ${tenantId} FOR UPDATE`),

    updateProject: (id: string, changes: ProjectChanges) => {
      const sets = (Object.keys(COLUMN) as (keyof ProjectChanges)[])
        .filter((k) => changes[k] !== undefined)
        .map((k) => sql.fragment`${sql.identifier([COLUMN[k]])} = ${changes[k] ?? null}`);
      return db.one(sql.type(TenantProject)`
        WITH u AS (UPDATE projects SET ${sql.join([...sets, sql.fragment`updated_at = now()`], sql.fragment`, `)} WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING *)
        SELECT ${columns} FROM u p`);
    },

    /** Deletes the project; its environments and everything in them go with it (ON DELETE CASCADE). */
    deleteProject: (id: string) => db.query(sql.unsafe`DELETE FROM projects WHERE tenant_id = ${tenantId} AND id = ${id}`),

    /** The project and environment the first start created: they hold the service's operators. */
    // unscoped: reads the service's own bootstrap record.
    bootstrapIds: async () => {
      const value = await db.maybeOneFirst(sql.type(z.object({ value: z.record(z.string(), z.unknown()) }))`
        SELECT value FROM service_state WHERE key = 'bootstrap'`);
      return { projectId: value?.projectId as string | undefined, environmentId: value?.environmentId as string | undefined };
    },
  };
}
