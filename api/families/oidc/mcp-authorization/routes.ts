// MCP authorization: protected resource metadata (RFC 9728) for the MCP servers of the trust store, public; the
// environment's dynamic client registration setting (RFC 7591), under environment-settings scopes.
import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import { EnvironmentScopeParams, OidcSettingsResponse, ProtectedResourceMetadata, ProtectedResourceParams, SaveOidcSettingsBody } from './schemas.ts';
import type { McpAuthorizationService } from './service.ts';
import type { App } from '../../../types.ts';

const base = '/v1/tenants/:tenantId/environments/:environmentId';

export function mcpAuthorizationRoutes(app: App, service: McpAuthorizationService) {
  const metadata = {
    config: { public: true },
    schema: {
      tags: ['MCP Trust Store'],
      summary: 'Protected resource metadata (RFC 9728) of an MCP server of the trust store',
      description:
        "What an MCP client reads after a 401 to find where to get a token for the server: the server's URL (`resource`), the environment's issuer, " +
        'the scopes to ask for. Point the server\'s `WWW-Authenticate: Bearer resource_metadata="…"` at this URL. Needs no token. ' +
        '404 for an entry that is not an MCP server of the environment, or is suspended or revoked.',
      params: ProtectedResourceParams,
      response: { 200: ProtectedResourceMetadata, ...errorResponses(404) },
    },
  } as const;
  app.get('/v1/oidc/:issuerEnvironmentId/protected-resources/:entryId', {
    ...metadata,
    schema: { ...metadata.schema, operationId: 'getProtectedResourceMetadata' },
    handler: async (r, reply) => {
      reply.header('cache-control', 'no-cache');
      return service.protectedResource(r.params.issuerEnvironmentId, r.params.entryId);
    },
  });
  app.get('/.well-known/oauth-protected-resource/v1/oidc/:issuerEnvironmentId/protected-resources/:entryId', {
    ...metadata,
    schema: {
      ...metadata.schema,
      operationId: 'getProtectedResourceMetadataWellKnown',
      summary: 'The same protected resource metadata, at the RFC 9728 well-known form of its URL',
    },
    handler: async (r, reply) => {
      reply.header('cache-control', 'no-cache');
      return service.protectedResource(r.params.issuerEnvironmentId, r.params.entryId);
    },
  });

  app.get(`${base}/settings/oidc`, {
    schema: {
      tags: ['Environments'],
      operationId: 'getEnvironmentOidcSettings',
      summary: "Get the OpenID provider settings of an environment (dynamic client registration)",
      description: 'Whether clients may register themselves at the environment\'s issuer (RFC 7591), and where. Closed unless saved.',
      security: requires('environment-settings:read'),
      params: EnvironmentScopeParams,
      response: { 200: OidcSettingsResponse, ...errorResponses(404) },
    },
    handler: (r) => service.settings(callerOf(r, 'environment')),
  });
  app.put(`${base}/settings/oidc`, {
    schema: {
      tags: ['Environments'],
      operationId: 'saveEnvironmentOidcSettings',
      summary: 'Open or close dynamic client registration (RFC 7591) at the environment\'s issuer',
      description:
        'Open (`dynamicRegistration: true`): anyone may register a client at the registration endpoint without a token, as MCP clients do; ' +
        'such clients appear among the OIDC clients. Closed: the endpoint is not advertised and answers 404. Takes effect on the next request on every instance.',
      security: requires('environment-settings:write'),
      params: EnvironmentScopeParams,
      body: SaveOidcSettingsBody,
      response: { 200: OidcSettingsResponse, ...errorResponses(404) },
    },
    handler: (r) => service.saveSettings(callerOf(r, 'environment'), r.body),
  });
}
