import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import { ApplicationEnvironmentsResponse, CreateEnvironmentBody, EnvironmentMutationResponse, EnvironmentParams, UpdateEnvironmentBody } from './schemas.ts';
import { ProjectParams } from '../projects/schemas.ts';
import type { EnvironmentService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Environments'];
const base = '/v1/tenants/:tenantId/projects/:projectId/environments';
const read = requires('environments:read');
const write = requires('environments:write');

export function environmentRoutes(app: App, environments: EnvironmentService) {
  app.get(base, {
    schema: {
      tags,
      operationId: 'listEnvironments',
      summary: 'List the environments of a project',
      description: 'Lists the environments of a project, with which one is its default. 404 for a project out of reach.',
      security: read,
      params: ProjectParams,
      response: { 200: ApplicationEnvironmentsResponse, ...errorResponses(404) },
    },
    handler: (r) => environments.list(callerOf(r, 'tenant'), r.params.projectId),
  });
  app.post(base, {
    schema: {
      tags,
      operationId: 'createEnvironment',
      summary: 'Create an environment in a project',
      description: 'Creates an environment in a project. 409 `environment.name_taken` when the project already has an environment of that name.',
      security: write,
      params: ProjectParams,
      body: CreateEnvironmentBody,
      response: { 201: EnvironmentMutationResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => reply.status(201).send(await environments.create(callerOf(r, 'tenant'), r.params.projectId, r.body)),
  });
  app.patch(`${base}/:environmentId`, {
    schema: {
      tags,
      operationId: 'updateEnvironment',
      summary: 'Update an environment',
      description:
        'Changes the name, description, weight or isLive of an environment. 409 `environment.name_taken` when another environment of the project has the name.',
      security: write,
      params: EnvironmentParams,
      body: UpdateEnvironmentBody,
      response: { 200: EnvironmentMutationResponse, ...errorResponses(404, 409) },
    },
    handler: (r) => environments.update(callerOf(r, 'tenant'), r.params.projectId, r.params.environmentId, r.body),
  });
  app.delete(`${base}/:environmentId`, {
    schema: {
      tags,
      operationId: 'deleteEnvironment',
      summary: 'Delete an environment and everything in it (never the default one)',
      description:
        "Deletes an environment with everything in it. 409 for the default environment of its project, or for the environment holding the service's operators.",
      security: write,
      params: EnvironmentParams,
      response: { 200: EnvironmentMutationResponse, ...errorResponses(404, 409) },
    },
    handler: (r) => environments.remove(callerOf(r, 'tenant'), r.params.projectId, r.params.environmentId),
  });
}
