// MCP servers of an environment's trust store as protected resources of its OpenID provider: the RFC 9728 metadata
// document an MCP client reads after a 401. (The provider's resource indicators, RFC 8707, accept the same entries:
// a token asked for with `resource=<the server's URL>` is a JWT whose `aud` is that server.)
import type { CommonQueryMethods } from 'slonik';
import { createOidcTrustStoreQueries, type ProtectedResource } from '../../db/oidc/agents/queries.ts';

/**
 * The scopes an MCP client asks for (the SDK registers and authorizes with `scopes_supported`): scopes the provider
 * knows, so dynamic registration accepts them; the server learns who signed in from the token's `sub`.
 */
export const MCP_RESOURCE_SCOPES = ['openid', 'profile', 'email'] as const;

export const issuerOf = (publicBaseUrl: string, environmentId: string) => `${publicBaseUrl}/v1/oidc/${environmentId}`;

/** Where the metadata of an MCP server entry is served (what the server's `resource_metadata` points at). */
export const protectedResourceMetadataUrl = (publicBaseUrl: string, environmentId: string, entryId: string) =>
  `${issuerOf(publicBaseUrl, environmentId)}/protected-resources/${entryId}`;

export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported: string[];
  bearer_methods_supported: string[];
  resource_name: string;
}

export const protectedResourceMetadata = (entry: ProtectedResource, issuer: string): ProtectedResourceMetadata => ({
  resource: entry.subject,
  authorization_servers: [issuer],
  scopes_supported: [...MCP_RESOURCE_SCOPES],
  bearer_methods_supported: ['header'],
  resource_name: entry.name,
});

/** The MCP server entry `entryId` of the environment as a protected resource, or null (unknown, revoked, suspended). */
export const findProtectedResource = (db: CommonQueryMethods, environmentId: string, entryId: string) =>
  createOidcTrustStoreQueries(db, environmentId).resourceById(entryId);
