// Shapes of MCP authorization: the RFC 9728 protected resource metadata of an MCP server, and the environment's
// OpenID provider setting for RFC 7591 dynamic client registration.
import { z } from 'zod';

export const EnvironmentScopeParams = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid() });
// Public routes name the environment by the issuer's path segment (`:environmentId` is reserved for routes in a tenant).
export const ProtectedResourceParams = z.strictObject({ issuerEnvironmentId: z.uuid(), entryId: z.uuid() });

export const ProtectedResourceMetadata = z
  .object({
    resource: z.string().describe("The MCP server's URL (the trust-store entry's subject): the audience of its access tokens"),
    authorization_servers: z.array(z.string()).describe("The environment's issuer"),
    scopes_supported: z.array(z.string()),
    bearer_methods_supported: z.array(z.string()),
    resource_name: z.string(),
  })
  .meta({ id: 'OAuthProtectedResourceMetadata', description: 'RFC 9728 protected resource metadata' });

export const SaveOidcSettingsBody = z
  .strictObject({
    dynamicRegistration: z
      .boolean()
      .describe('Open RFC 7591 dynamic client registration at the issuer (what MCP clients use to register themselves); false closes it'),
  })
  .meta({ id: 'SaveOidcSettingsRequest' });

export const OidcSettingsResponse = z
  .object({
    settings: z.object({
      environmentId: z.uuid(),
      dynamicRegistration: z.boolean(),
      registrationEndpoint: z.string().nullable().describe('Where clients register themselves while registration is open; null when closed'),
      updatedAt: z.string().nullable(),
    }),
  })
  .meta({ id: 'OidcSettingsResponse' });
export type OidcSettingsResponse = z.infer<typeof OidcSettingsResponse>;
