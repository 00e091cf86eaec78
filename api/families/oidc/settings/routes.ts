// An environment's token settings: JWT claim mappings and the session config, applied by its OpenID provider.
import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import {
  DeleteJwtClaimMappingResponse,
  EnvironmentScopeParams,
  JwtClaimMappingsResponse,
  MappingParams,
  SaveClaimMappingBody,
  SaveJwtClaimMappingResponse,
  SessionConfigBody,
  SessionConfigResponse,
} from './schemas.ts';
import type { ClaimMappingService } from './claim-mappings.ts';
import type { SessionConfigService } from './session-config.ts';
import type { App } from '../../../types.ts';

const tags = ['Environment settings'];
const base = '/v1/tenants/:tenantId/environments/:environmentId/settings';
const read = requires('environment-settings:read');
const write = requires('environment-settings:write');
const params = EnvironmentScopeParams;
const APPLIED = ' Every instance applies it to the tokens it issues from the next request on.';

export function oidcSettingRoutes(app: App, mappings: ClaimMappingService, sessions: SessionConfigService) {
  app.get(`${base}/jwt-claim-mappings`, {
    schema: {
      tags,
      operationId: 'listJwtClaimMappings',
      summary: 'List the JWT claim mappings of an environment',
      description: 'Lists the extra claims the environment adds to ID and access tokens, oldest first.',
      security: read,
      params,
      response: { 200: JwtClaimMappingsResponse, ...errorResponses(404) },
    },
    handler: (r) => mappings.list(callerOf(r, 'environment')),
  });
  app.post(`${base}/jwt-claim-mappings`, {
    schema: {
      tags,
      operationId: 'saveJwtClaimMapping',
      summary: 'Save a JWT claim mapping: create one, or update the one named by id',
      description:
        'Without `id`, creates a mapping (201); with it, updates that mapping (200). 400 naming `body.claimName` for a reserved claim ' +
        '(sub, email, …), `body.metadataKey` or `body.staticValue` when they do not fit `source`; 409 `jwt_claim_mapping.claim_name_taken` ' +
        'when another mapping of the environment has the claimName.' +
        APPLIED,
      security: write,
      params,
      body: SaveClaimMappingBody,
      response: { 200: SaveJwtClaimMappingResponse, 201: SaveJwtClaimMappingResponse, ...errorResponses(404, 409) },
    },
    handler: async (r, reply) => {
      const { created, mapping } = await mappings.save(callerOf(r, 'environment'), r.body);
      return reply.status(created ? 201 : 200).send({ mapping });
    },
  });
  app.delete(`${base}/jwt-claim-mappings/:mappingId`, {
    schema: {
      tags,
      operationId: 'deleteJwtClaimMapping',
      summary: 'Delete a JWT claim mapping',
      description: 'Deletes the mapping: tokens no longer carry its claim.' + APPLIED,
      security: write,
      params: MappingParams,
      response: { 200: DeleteJwtClaimMappingResponse, ...errorResponses(404) },
    },
    handler: (r) => mappings.remove(callerOf(r, 'environment'), r.params.mappingId),
  });
  app.get(`${base}/session`, {
    schema: {
      tags,
      operationId: 'getSessionConfig',
      summary: 'Get the session config of an environment',
      description: 'Returns the stored session config with the defaults of the keys the service reads filled in.',
      security: read,
      params,
      response: { 200: SessionConfigResponse, ...errorResponses(404) },
    },
    handler: (r) => sessions.find(callerOf(r, 'environment')),
  });
  const update = {
    tags,
    security: write,
    params,
    body: SessionConfigBody,
    response: { 200: SessionConfigResponse, ...errorResponses(404) },
  };
  app.put(`${base}/session`, {
    schema: {
      ...update,
      operationId: 'updateSessionConfig',
      summary: 'Replace the session config of an environment',
      description:
        'Replaces the stored config with the object given (a key left out falls back to its default). 400 naming `body.<key>` for a value out of range, ' +
        'and when idleLifetimeSeconds would exceed absoluteLifetimeSeconds.' +
        APPLIED,
    },
    handler: (r) => sessions.replace(callerOf(r, 'environment'), r.body),
  });
  app.patch(`${base}/session`, {
    schema: {
      ...update,
      operationId: 'patchSessionConfig',
      summary: 'Change some keys of the session config of an environment',
      description: 'Merges the keys given into the stored config (the others are kept); checked as on replace.' + APPLIED,
    },
    handler: (r) => sessions.merge(callerOf(r, 'environment'), r.body),
  });
}
