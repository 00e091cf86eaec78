import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const Id = z.object({ id: z.uuid() });

export function createProjectQueries(db: CommonQueryMethods) {
  return {
    insertProject: (project: { tenantId: string; name: string; type: 'web' | 'm2m' | 'mcp'; description?: string | null }) =>
      db.oneFirst(sql.type(Id)`
        INSERT INTO projects (tenant_id, name, type, description)
        VALUES (${project.tenantId}, ${project.name}, ${project.type}, ${project.description ?? null}) RETURNING id`),

    insertEnvironment: (env: { tenantId: string; projectId: string; name: string; isLive: boolean; weight?: number | null }) =>
      db.oneFirst(sql.type(Id)`
        INSERT INTO environments (tenant_id, project_id, name, is_live, weight)
        VALUES (${env.tenantId}, ${env.projectId}, ${env.name}, ${env.isLive}, ${env.weight ?? null}) RETURNING id`),

    environmentInTenant: (environmentId: string, tenantId: string) =>
      db.exists(sql.type(Id)`SELECT id FROM environments WHERE id = ${environmentId} AND tenant_id = ${tenantId}`),

    setDefaultEnvironment: (projectId: string, environmentId: string) =>
      db.query(sql.unsafe`UPDATE projects SET default_environment_id = ${environmentId}, updated_at = now() WHERE id = ${projectId}`),
  };
}
