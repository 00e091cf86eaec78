// Shapes of what lives in an environment's sign-in setup: connections, redirect URIs, SAML IdP metadata,
// enterprise SSO (service provider) metadata and the SDK configuration.
import { z } from 'zod';
import { EnvironmentConnection } from '../../../../db/projects/projects/rows.ts';
import { DECISION_ENGINES, SUBJECT_IDENTIFIERS } from '../../../../lib/authz/model.ts';
import { displayName, ManagementMeta } from '../../../common/schemas.ts';
import { describeProviders, PROVIDER_IDS, SSO_PROVIDER_IDS } from './connection-providers.ts';

export { EnvironmentConnection };

export const EnvironmentScopeParams = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid() });
export const ConnectionParams = EnvironmentScopeParams.extend({ connectionId: z.uuid() });
export const SsoParams = EnvironmentScopeParams.extend({ providerId: z.enum(SSO_PROVIDER_IDS) });

const ref = { id: z.uuid(), name: z.string().nullable() };
const meta = ManagementMeta.optional();
const MiB = 1024 * 1024;

export const SaveConnectionBody = z
  .strictObject({
    providerId: z.enum(PROVIDER_IDS),
    formPayload: z
      .string()
      .max(MiB, 'must be at most 1 MiB')
      .describe(
        `The provider's settings as a JSON object in a string. Per providerId: ${describeProviders()}. Secrets (clientSecret) are write-only and kept when left out of an update.`,
      ),
    connectionId: z.uuid().nullable().optional().describe('A connection of this environment to update; a new one is appended when absent'),
    name: displayName(200).optional().describe("Defaults to the provider's name"),
  })
  .meta({ id: 'SaveEnvironmentConnectionRequest' });

export const ApplicationEnvironmentConnectionsResponse = z
  .object({ project: z.object({ ...ref, type: z.string().nullable() }), environment: z.object(ref), connections: z.array(EnvironmentConnection), meta })
  .meta({ id: 'ApplicationEnvironmentConnectionsResponse' });

export const SaveEnvironmentConnectionResponse = z
  .object({
    tenant: z.object(ref),
    environment: z.object({ ...ref, description: z.string().nullable() }),
    connection: EnvironmentConnection.describe('The saved connection (an addition to the SPEC shape)'),
    meta,
  })
  .meta({ id: 'SaveEnvironmentConnectionResponse' });

export const DeleteEnvironmentConnectionResponse = z
  .object({ tenant: z.object(ref), environment: z.object(ref), connection: EnvironmentConnection.nullable(), meta })
  .meta({ id: 'DeleteEnvironmentConnectionResponse' });

const redirectUri = z
  .url({ protocol: /^https?$/, error: (issue) => (issue.input === undefined ? 'is required' : 'must be an absolute http(s) URL') })
  .max(2048, 'must be at most 2048 characters')
  .refine((u) => !u.includes('#'), 'must not contain a fragment (#)');

export const SaveRedirectUrisBody = z
  .strictObject({
    successRedirectUri: redirectUri.describe('Where users land after signing in'),
    errorRedirectUri: redirectUri.nullable().optional().describe('Where users land when sign-in fails; the success URI when absent'),
  })
  .meta({ id: 'SaveEnvironmentRedirectUrisRequest' });

export const EnvironmentRedirectUrisResponse = z
  .object({
    environment: z.object(ref),
    config: z.object({
      id: z.uuid().describe("The environment's id: one configuration per environment"),
      successRedirectUri: z.string().nullable(),
      errorRedirectUri: z.string().nullable(),
    }),
    meta,
  })
  .meta({ id: 'EnvironmentRedirectUrisResponse' });

export const ResolveSamlMetadataBody = z
  .strictObject({
    metadataUrl: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .max(2048)
      .optional()
      .describe('Fetched by the service (5 s, 1 MiB at most; private networks refused)'),
    metadataXml: z.string().max(MiB, 'must be at most 1 MiB').optional(),
  })
  .meta({ id: 'ResolveSamlIdpMetadataRequest', description: 'Exactly one of metadataUrl and metadataXml' });

export const SamlIdpMetadata = z
  .object({
    idpEntityId: z.string().nullable(),
    idpSsoUrl: z.string().nullable().describe('SingleSignOnService location, HTTP-Redirect binding preferred over HTTP-POST'),
    idpX509Cert: z.string().nullable().describe("The IdP's signing certificate, PEM"),
    nameIdFormat: z.string().nullable(),
    sloUrl: z.string().nullable().describe('SingleLogoutService location, when the IdP has one'),
  })
  .meta({ id: 'SamlIdpMetadata' });
export type SamlIdpMetadata = z.infer<typeof SamlIdpMetadata>;

export const SamlIdpMetadataResponse = z.object({ metadata: SamlIdpMetadata.nullable(), meta }).meta({ id: 'SamlIdpMetadataResponse' });

export const EnterpriseSsoMetadata = z
  .object({
    providerId: z.string().nullable(),
    protocol: z.string().nullable().describe('saml, oidc or oauth2'),
    acsUrl: z.string().nullable().describe('SAML assertion consumer service URL (null for other protocols)'),
    callbackUrl: z.string().nullable().describe('Where the provider sends users back: the ACS URL for SAML, the redirect URI otherwise'),
    loginUrl: z.string().nullable(),
    spEntityId: z.string().nullable(),
    metadataXml: z.string().nullable().describe('SAML service provider metadata (EntityDescriptor) to give the IdP'),
    supportsMetadataUrl: z.boolean().nullable().describe('The connection can be configured from a URL the provider publishes'),
    connections: z
      .array(
        z.object({
          connectionId: z.uuid(),
          name: z.string(),
          acsUrl: z.string().nullable(),
          callbackUrl: z.string().nullable(),
          loginUrl: z.string().nullable(),
          spEntityId: z.string().nullable(),
          metadataXml: z.string().nullable(),
        }),
      )
      .optional()
      .describe('With more than one active connection of the provider: each connection with its own URLs (the provider-level ones then sign in with none)'),
  })
  .meta({ id: 'EnterpriseSsoMetadata' });
export type EnterpriseSsoMetadata = z.infer<typeof EnterpriseSsoMetadata>;

export const EnterpriseSsoMetadataResponse = z.object({ metadata: EnterpriseSsoMetadata.nullable(), meta }).meta({ id: 'EnterpriseSsoMetadataResponse' });

export const EnvironmentSdkConfig = z
  .looseObject({
    clientId: z.string().nullable().describe('The OIDC client id to use; null when the environment has no client'),
    publicKey: z.string().optional().describe('Not given by this service: the provider publishes its keys, which rotate, at `endpoints.jwks`'),
    endpoints: z.record(z.string(), z.string()).optional().describe('issuer, discovery and the OpenID provider’s endpoints'),
    envVars: z.record(z.string(), z.string()).nullable().optional().describe('OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_REDIRECT_URI (the client’s first)'),
    warnings: z.array(z.string()).optional().describe('Setup still missing before users can sign in'),
  })
  .meta({ id: 'EnvironmentSdkConfig' });
export type EnvironmentSdkConfig = z.infer<typeof EnvironmentSdkConfig>;

export const SdkConfigQuery = z.strictObject({
  clientId: z.string().min(1).max(200).optional().describe('The OIDC client to configure; the first active client of the environment when absent'),
});

const subjectIdentifier = z
  .enum(SUBJECT_IDENTIFIERS)
  .describe(
    'The kind of identifier AuthZEN requests name subjects by. `any` (default): users by id, externalId or userName, groups by id, ' +
      'externalId or name, unambiguous because the directory refuses an externalId equal to another subject’s userName (name) or id (409 ' +
      '`directory.identifier_taken`). One kind alone: users by `id`, `externalId`, `userName` or any of their emails (`email`); groups by `id`, ' +
      '`externalId`, or name (for `userName` and `email`). userName, email and name ignore case; ids and externalIds compare exactly.',
  );

const resourceTypeEngines = z
  .record(
    z.string().regex(/^[^\s:#@*]{1,254}$/, 'is not a resource type name (1 to 254 characters, none of whitespace, `:`, `#`, `@`, `*`)'),
    z.enum(DECISION_ENGINES),
  )
  .refine((map) => Object.keys(map).length <= 500, 'may name at most 500 resource types')
  .describe(
    'The resource types whose decision engine is set explicitly: `rbac` (the directory and roles) or `fga` (the environment’s latest FGA ' +
      'model; the subject `{type, id}` is the user `type:id`, the action name the relation). A type not named here is RBAC’s when the ' +
      'RBAC model defines it, else FGA’s when the latest FGA model defines it, else RBAC’s (which denies it as unknown).',
  );

export const SaveAuthzenSettingsBody = z
  .strictObject({ subjectIdentifier: subjectIdentifier.optional(), resourceTypeEngines: resourceTypeEngines.optional() })
  .describe('A field left out keeps its saved value.')
  .meta({ id: 'SaveAuthzenSettingsRequest' });

export const AuthzenSettingsResponse = z
  .object({ settings: z.object({ environmentId: z.uuid(), subjectIdentifier, resourceTypeEngines }) })
  .meta({ id: 'AuthzenSettingsResponse' });
