// What lives in an environment's setup: connections, redirect URIs, SAML IdP metadata, SSO metadata, SDK config, AuthZEN settings.
import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import {
  ApplicationEnvironmentConnectionsResponse,
  AuthzenSettingsResponse,
  SaveAuthzenSettingsBody,
  ConnectionParams,
  DeleteEnvironmentConnectionResponse,
  EnterpriseSsoMetadataResponse,
  EnvironmentRedirectUrisResponse,
  EnvironmentScopeParams,
  EnvironmentSdkConfig,
  SdkConfigQuery,
  ResolveSamlMetadataBody,
  SamlIdpMetadataResponse,
  SaveConnectionBody,
  SaveEnvironmentConnectionResponse,
  SaveRedirectUrisBody,
  SsoParams,
} from './schemas.ts';
import type { AuthzenSettingsService } from './authzen.ts';
import type { ConnectionService } from './connections.ts';
import type { EnvironmentSettingsService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Environments'];
const base = '/v1/tenants/:tenantId/environments/:environmentId';
const read = requires('environments:read');
const write = requires('environments:write');
const params = EnvironmentScopeParams;

export function environmentSettingRoutes(app: App, connections: ConnectionService, settings: EnvironmentSettingsService, authzen: AuthzenSettingsService) {
  app.get(`${base}/connections`, {
    schema: {
      tags,
      operationId: 'listEnvironmentConnections',
      summary: 'List the sign-in connections of an environment, in rank order',
      description: 'Lists the sign-in connections of an environment in the order sign-in offers them; their secrets are never returned.',
      security: read,
      params,
      response: { 200: ApplicationEnvironmentConnectionsResponse, ...errorResponses(404) },
    },
    handler: (r) => connections.list(callerOf(r, 'environment')),
  });
  app.post(`${base}/connections`, {
    schema: {
      tags,
      operationId: 'saveEnvironmentConnection',
      summary: 'Save a sign-in connection: append a new one, or update the one named by connectionId',
      description:
        'Without `connectionId`, appends a connection (201); with it, updates that connection (200). 400 when `formPayload` is not a JSON object of valid settings, or changes the provider of an existing connection.',
      security: write,
      params,
      body: SaveConnectionBody,
      response: { 200: SaveEnvironmentConnectionResponse, 201: SaveEnvironmentConnectionResponse, ...errorResponses(404) },
    },
    handler: async (r, reply) => {
      const { created, ...saved } = await connections.save(callerOf(r, 'environment'), r.body);
      return reply.status(created ? 201 : 200).send(saved);
    },
  });
  app.delete(`${base}/connections/:connectionId`, {
    schema: {
      tags,
      operationId: 'deleteEnvironmentConnection',
      summary: 'Remove a sign-in connection',
      description: 'Removes a connection from the environment, so sign-in stops offering it, and returns it.',
      security: write,
      params: ConnectionParams,
      response: { 200: DeleteEnvironmentConnectionResponse, ...errorResponses(404) },
    },
    handler: (r) => connections.remove(callerOf(r, 'environment'), r.params.connectionId),
  });
  app.get(`${base}/redirect-uris`, {
    schema: {
      tags,
      operationId: 'getEnvironmentRedirectUris',
      summary: 'Get the redirect URIs of an environment',
      description: 'Returns where sign-in sends users back, on success and on error.',
      security: read,
      params,
      response: { 200: EnvironmentRedirectUrisResponse, ...errorResponses(404) },
    },
    handler: (r) => settings.redirectUris(callerOf(r, 'environment')),
  });
  app.put(`${base}/redirect-uris`, {
    schema: {
      tags,
      operationId: 'saveEnvironmentRedirectUris',
      summary: 'Save the redirect URIs of an environment',
      description: 'Replaces the success and error redirect URIs of the environment and returns them.',
      security: write,
      params,
      body: SaveRedirectUrisBody,
      response: { 200: EnvironmentRedirectUrisResponse, ...errorResponses(404) },
    },
    handler: (r) => settings.saveRedirectUris(callerOf(r, 'environment'), r.body),
  });
  app.get(`${base}/authzen-settings`, {
    schema: {
      tags,
      operationId: 'getEnvironmentAuthzenSettings',
      summary: 'Get the AuthZEN settings of an environment',
      description:
        'Returns the kind of identifier AuthZEN requests (/access/v1) name subjects by in this environment (`any` unless saved) and the resource ' +
        'types whose decision engine (RBAC or FGA) is set explicitly.',
      security: read,
      params,
      response: { 200: AuthzenSettingsResponse, ...errorResponses(404) },
    },
    handler: (r) => authzen.find(callerOf(r, 'environment')),
  });
  app.put(`${base}/authzen-settings`, {
    schema: {
      tags,
      operationId: 'saveEnvironmentAuthzenSettings',
      summary: 'Save the AuthZEN settings of an environment',
      description:
        'Sets the one kind of identifier AuthZEN requests name subjects by (no other kind is looked up, and search answers with it) and the ' +
        'resource types RBAC or FGA decides against the default (`resourceTypeEngines` replaces the saved map as a whole). A field left out ' +
        'keeps its saved value. Takes effect on the next decision on every instance.',
      security: write,
      params,
      body: SaveAuthzenSettingsBody,
      response: { 200: AuthzenSettingsResponse, ...errorResponses(404) },
    },
    handler: (r) => authzen.save(callerOf(r, 'environment'), r.body),
  });
  app.post(`${base}/saml/resolve-metadata`, {
    schema: {
      tags,
      operationId: 'resolveSamlIdpMetadata',
      summary: 'Read SAML IdP metadata (XML, or a URL the service fetches) into the values a SAML connection needs',
      description:
        'Extracts entity id, SSO URL, signing certificate, NameID format and logout URL from IdP metadata given as XML or at `metadataUrl` (public addresses only). Nothing is stored; 400 `saml_metadata.*` for metadata that cannot be used.',
      security: write,
      params,
      body: ResolveSamlMetadataBody,
      response: { 200: SamlIdpMetadataResponse, ...errorResponses(404) },
    },
    handler: (r) => settings.resolveSamlMetadata(r.body),
  });
  app.get(`${base}/sso/:providerId/metadata`, {
    schema: {
      tags,
      operationId: 'getSsoProviderMetadata',
      summary: 'Service provider metadata and URLs to give an identity provider',
      description:
        'Returns what to configure at the identity provider of an enterprise connection: ACS or callback URL, login URL, service provider entity id and, for SAML, the service provider metadata XML.',
      security: read,
      params: SsoParams,
      response: { 200: EnterpriseSsoMetadataResponse, ...errorResponses(404) },
    },
    handler: (r) => settings.ssoMetadata(callerOf(r, 'environment'), r.params.providerId),
  });
  app.get(`${base}/sdk-config`, {
    schema: {
      tags,
      operationId: 'getEnvironmentSdkConfig',
      summary: 'What an SDK needs to sign users in with this environment: issuer, endpoints, client id, environment variables, missing setup',
      description:
        'Returns the issuer of the environment’s OpenID provider ({PUBLIC_BASE_URL}/v1/oidc/{environmentId}) and its endpoints, the OIDC client id (`?clientId=` if it is a client of the environment, else the first active client, else null), the environment variables to set (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_REDIRECT_URI) and warnings about setup still missing. It never contains secrets.',
      security: read,
      params,
      querystring: SdkConfigQuery,
      response: { 200: EnvironmentSdkConfig, ...errorResponses(404) },
    },
    handler: (r) => settings.sdkConfig(callerOf(r, 'environment'), r.query.clientId),
  });
}
