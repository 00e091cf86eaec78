import { z } from 'zod';
import { AUTH_METHODS, GRANT_TYPES, ID_TOKEN_ALGS, OidcClient, RESPONSE_TYPES } from '../../../../db/oidc/clients/rows.ts';
import { displayName, pageOf } from '../../../common/schemas.ts';
import { EnvironmentScopeParams } from '../../projects/environment-settings/schemas.ts';

export { OidcClient, EnvironmentScopeParams };

/** The most redirect URIs of an Agent Sign-In client (SPEC Limits). */
export const AGENT_MAX_REDIRECT_URIS = 10;

// RFC 6749 §3.3 scope-token: printable ASCII but space, `"` and `\`.
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/;

const description = z.string().max(2000).nullable().optional();
/** A web page of the client shown to users (logo, home page, policy, terms): an absolute http(s) URL. */
const webUri = z
  .string()
  .max(2000)
  .refine((value) => /^https?:$/.test(URL.parse(value)?.protocol ?? ''), 'must be an absolute http or https URL')
  .nullable()
  .optional();
/** Redirect URIs are checked beside the rest of the client (validation.ts): what is allowed depends on it. */
const uris = (max: number) => z.array(z.string().max(2000, 'must be at most 2000 characters')).max(max, `must hold at most ${max} URIs`);

const Jwks = z
  .strictObject({ keys: z.array(z.record(z.string(), z.unknown())).min(1, 'must hold at least one key').max(10, 'must hold at most 10 keys') })
  .describe('Public keys of the client (JWK Set) for private_key_jwt: EC P-256, Ed25519 or RSA ≥ 2048 bits, no private members');

const fields = {
  description,
  logoUri: webUri,
  clientUri: webUri,
  policyUri: webUri,
  tosUri: webUri,
  redirectUris: uris(100)
    .optional()
    .describe(
      'https; http only for a loopback host (127.0.0.1, [::1], localhost); a private-use scheme (com.example.app:/cb) for public clients; no fragment, no wildcard',
    ),
  postLogoutRedirectUris: uris(100).optional().describe('Where RP-initiated logout may return; the rules of redirectUris'),
  grantTypes: z
    .array(z.enum(GRANT_TYPES))
    .min(1, 'must name at least one grant type')
    .optional()
    .describe('client_credentials only in an m2m project and never for a public (none) client'),
  responseTypes: z.array(z.enum(RESPONSE_TYPES)).optional().describe('[code] when the client uses authorization_code, else []'),
  scopes: z
    .array(z.string().regex(SCOPE, 'must be an OAuth scope token (1–128 printable ASCII characters, no space, " or \\)'))
    .max(100)
    .optional()
    .describe('Scopes the client may ask for: openid, profile, email, phone, address, offline_access and any API scope'),
  requirePkce: z.boolean().optional().describe('The authorization request must carry a PKCE S256 challenge (default true; always for public clients)'),
  tokenEndpointAuthMethod: z.enum(AUTH_METHODS).optional().describe('How the client authenticates at the token endpoint (default client_secret_basic)'),
  backchannelLogoutUri: z.string().max(2000).nullable().optional().describe('Receives OpenID back-channel logout tokens: https, or http on a loopback host'),
  idTokenSignedResponseAlg: z.enum(ID_TOKEN_ALGS).optional().describe('The algorithm of its ID tokens (default ES256)'),
  jwks: Jwks.nullable().optional(),
};

export const RegisterOidcClientBody = z
  .strictObject({
    clientName: displayName(200),
    ...fields,
    agentSignIn: z.boolean().optional().describe('Agent Sign-In: authorization_code only, PKCE enforced, no refresh token, at most 10 redirect URIs'),
  })
  .meta({ id: 'RegisterOidcClientRequest' });
export type RegisterOidcClientBody = z.infer<typeof RegisterOidcClientBody>;

export const UpdateOidcClientBody = z.strictObject({ clientName: displayName(200).optional(), ...fields }).meta({ id: 'UpdateOidcClientRequest' });
export type UpdateOidcClientBody = z.infer<typeof UpdateOidcClientBody>;

export const OidcClientParams = EnvironmentScopeParams.extend({ clientId: z.string().min(1).max(200) });

const clientSecret = z.string().describe('The client secret (adoc_…), shown only in this response');
export const OidcClientMutationResponse = z.object({ client: OidcClient, clientSecret: clientSecret.optional() }).meta({ id: 'OidcClientMutationResponse' });
export const OidcClientSecretResponse = z.object({ client: OidcClient, clientSecret }).meta({ id: 'OidcClientSecretResponse' });
export const OidcClientsResponse = pageOf('clients', OidcClient).meta({ id: 'OidcClientsResponse' });
export const DeleteOidcClientResponse = z.object({ clientId: z.string() }).meta({ id: 'DeleteOidcClientResponse' });
