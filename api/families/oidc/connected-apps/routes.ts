// Connected apps: the consents users gave the environment's clients, and their revocation.
import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses, PageQuery } from '../../../common/schemas.ts';
import {
  ConnectedAppsQuery,
  ConnectedAppSuccessResponse,
  EnvironmentScopeParams,
  OidcClientGrantsResponse,
  RevokeConnectedAppBody,
  UserParams,
} from './schemas.ts';
import type { ConnectedAppService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Connected apps'];
const base = '/v1/tenants/:tenantId/environments/:environmentId';
const read = requires('connected-apps:read');
const write = requires('connected-apps:write');

export function connectedAppRoutes(app: App, apps: ConnectedAppService) {
  app.get(`${base}/connected-apps`, {
    schema: {
      tags,
      operationId: 'listConnectedApps',
      summary: 'List the connected apps of an environment',
      description: "Lists the consents the environment's users gave its clients, revoked ones included, oldest first; filtered by `clientId` or `userId`.",
      security: read,
      params: EnvironmentScopeParams,
      querystring: ConnectedAppsQuery,
      response: { 200: OidcClientGrantsResponse, ...errorResponses(404) },
    },
    handler: (r) => apps.list(callerOf(r, 'environment'), r.query),
  });
  app.get(`${base}/directory/users/:userId/connected-apps`, {
    schema: {
      tags,
      operationId: 'listUserConnectedApps',
      summary: 'List the connected apps of a user',
      description: 'Lists the consents the user gave clients of the environment, revoked ones included, oldest first.',
      security: read,
      params: UserParams,
      querystring: PageQuery,
      response: { 200: OidcClientGrantsResponse, ...errorResponses(404) },
    },
    handler: (r) => apps.listOfUser(callerOf(r, 'environment'), r.params.userId, r.query),
  });
  app.post(`${base}/connected-apps/revoke`, {
    schema: {
      tags,
      operationId: 'revokeConnectedApp',
      summary: "Revoke a user's consent to a client, with every token issued under it",
      description:
        "Marks the grant revoked and deletes the provider's records of it (authorization codes, access and refresh tokens) at once: introspection " +
        'answers inactive and a refresh is refused on every instance, and the client must ask for consent again. ' +
        'A grant already revoked answers success again. 404 `connected_app.not_found` when the user never consented to the client.',
      security: write,
      params: EnvironmentScopeParams,
      body: RevokeConnectedAppBody,
      response: { 200: ConnectedAppSuccessResponse, ...errorResponses(404) },
    },
    handler: (r) => apps.revoke(callerOf(r, 'environment'), r.body),
  });
}
