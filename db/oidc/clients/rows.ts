// An OIDC client as the API shows it (SPEC OidcClient plus the fields the provider reads): never its secret, only the
// display prefix of it.
import { z } from 'zod';
import { isoTimestamp, uuid } from '../../shared/rows.ts';

export const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'] as const;
export const RESPONSE_TYPES = ['code'] as const;
export const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt'] as const;
export const ID_TOKEN_ALGS = ['ES256', 'RS256'] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];
export type GrantType = (typeof GRANT_TYPES)[number];

/** Auth methods without a client secret: the client proves nothing (`none`) or signs with its own key. */
export const SECRETLESS: readonly AuthMethod[] = ['none', 'private_key_jwt'];

const uri = z.string().nullable();

export const OidcClient = z
  .object({
    id: uuid,
    clientId: z.string().describe('The public client_id relying parties send'),
    name: z.string(),
    environmentId: uuid,
    description: z.string().nullable(),
    logoUri: uri,
    clientUri: uri,
    policyUri: uri,
    tosUri: uri,
    redirectUris: z.array(z.string()),
    postLogoutRedirectUris: z.array(z.string()),
    grantTypes: z.array(z.enum(GRANT_TYPES)),
    responseTypes: z.array(z.enum(RESPONSE_TYPES)),
    scopes: z.array(z.string()),
    tokenEndpointAuthMethod: z.enum(AUTH_METHODS),
    pkceRequired: z.boolean().describe('The authorization request must carry a PKCE S256 code challenge'),
    agentSignIn: z.boolean().describe('An Agent Sign-In client: authorization_code only, PKCE enforced, no refresh token, at most 10 redirect URIs'),
    idTokenSignedResponseAlg: z.enum(ID_TOKEN_ALGS),
    backchannelLogoutUri: uri,
    jwks: z
      .object({ keys: z.array(z.record(z.string(), z.unknown())) })
      .nullable()
      .describe('Public keys of the client (private_key_jwt)'),
    secretPrefix: z.string().nullable().describe('The first characters of the client secret (adoc_…); null when the client has none'),
    dynamicallyRegistered: z.boolean().describe('Registered through RFC 7591 dynamic client registration'),
    active: z.boolean(),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'OidcClient' });
export type OidcClient = z.infer<typeof OidcClient>;
