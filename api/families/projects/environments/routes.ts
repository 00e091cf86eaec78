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
      summary: 'List the environments of a project',
      security: read,
      params: ProjectParams,
      response: { 200: ApplicationEnvironmentsResponse, ...errorResponses(404) },
    },
    handler: (r) => environments.list(callerOf(r, 'tenant'), r.params.projectId),
  });
  app.post(base, {
    schema: {
      tags,
      summary: 'Create an environment in a project',
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
      summary: 'Update an environment',
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
      summary: 'Delete an environment and everything in it (never the default one)',
      security: write,
      params: EnvironmentParams,
      response: { 200: EnvironmentMutationResponse, ...errorResponses(404, 409) },
    },
    handler: (r) => environments.remove(callerOf(r, 'tenant'), r.params.projectId, r.params.environmentId),
  });
}
