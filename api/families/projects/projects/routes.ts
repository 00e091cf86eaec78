import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import { ProjectParams, ProjectResponse, SaveApplicationResponse, SaveProjectBody, SetDefaultEnvironmentBody, TenantProjectsResponse } from './schemas.ts';
import { TenantParams } from '../../tenants/tenants/schemas.ts';
import type { ProjectService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Projects'];
const base = '/v1/tenants/:tenantId/projects';
const read = requires('projects:read');
const write = requires('projects:write');

export function projectRoutes(app: App, projects: ProjectService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listProjects',
      summary: 'List the projects (applications) of a tenant',
      description: 'Lists the projects (applications) of a tenant the caller reaches, one page at a time.',
      security: read,
      params: TenantParams,
      querystring: PageQuery,
      response: { 200: TenantProjectsResponse, ...errorResponses(404) },
    },
    handler: (r) => projects.list(callerOf(r, 'tenant'), r.query),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'saveProject',
      summary: 'Save an application: create a project (with development and production environments), or update the one named by id',
      description:
        'Without `id`, creates a project with a development and a production environment (201); with the `id` of a project of the tenant, updates it (200). 404 for a tenant or project out of reach.',
      security: write,
      params: TenantParams,
      body: SaveProjectBody,
      response: { 200: SaveApplicationResponse, 201: SaveApplicationResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) => {
      const { created, project } = await projects.save(callerOf(r, 'tenant'), r.body);
      return reply.status(created ? 201 : 200).send({ project, environments: project.environments ?? [] });
    },
  });
  app.get(`${base}/:projectId`, {
    schema: {
      tags,
      operationId: 'getProject',
      summary: 'Get a project with its environments',
      description: 'Returns one project of the tenant with its environments. 404 when it is out of reach.',
      security: read,
      params: ProjectParams,
      response: { 200: ProjectResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ project: await projects.get(callerOf(r, 'tenant'), r.params.projectId) }),
  });
  app.delete(`${base}/:projectId`, {
    schema: {
      tags,
      operationId: 'deleteProject',
      summary: 'Delete a project, its environments and everything in them',
      description:
        "Deletes a project with its environments and everything in them, and returns it. 409 `project.protected` for the project holding the service's operators.",
      security: write,
      params: ProjectParams,
      response: { 200: ProjectResponse, ...errorResponses(404, 409) },
    },
    handler: async (r) => ({ project: await projects.remove(callerOf(r, 'tenant'), r.params.projectId) }),
  });
  app.put(`${base}/:projectId/default-environment`, {
    schema: {
      tags,
      operationId: 'setDefaultEnvironment',
      summary: 'Set the default environment of a project',
      description: "Makes one of the project's environments its default. 400 `project.unknown_environment` for an environment of another project.",
      security: write,
      params: ProjectParams,
      body: SetDefaultEnvironmentBody,
      response: { 200: ProjectResponse, ...errorResponses(404) },
    },
    handler: async (r) => ({ project: await projects.setDefaultEnvironment(callerOf(r, 'tenant'), r.params.projectId, r.body.environmentId) }),
  });
}
