// The OIDC clients of one environment as the provider's Client model reads them.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export const OidcClientRow = z.object({
  clientId: z.string(),
  name: z.string(),
  logoUri: z.string().nullable(),
  clientUri: z.string().nullable(),
  policyUri: z.string().nullable(),
  tosUri: z.string().nullable(),
  redirectUris: z.array(z.string()),
  postLogoutRedirectUris: z.array(z.string()),
  grantTypes: z.array(z.string()),
  responseTypes: z.array(z.string()),
  scopes: z.array(z.string()),
  tokenEndpointAuthMethod: z.string(),
  pkceRequired: z.boolean(),
  agentSignIn: z.boolean(),
  idTokenSignedResponseAlg: z.string(),
  backchannelLogoutUri: z.string().nullable(),
  jwks: z.record(z.string(), z.unknown()).nullable(),
  secretEncrypted: z.string().nullable(),
});
export type OidcClientRow = z.infer<typeof OidcClientRow>;

export function createProviderClientQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** An active client of the environment. */
    findActive: (clientId: string) =>
      db.maybeOne(sql.type(OidcClientRow)`
        SELECT client_id AS "clientId", name, logo_uri AS "logoUri", client_uri AS "clientUri", policy_uri AS "policyUri",
          tos_uri AS "tosUri", redirect_uris AS "redirectUris", post_logout_redirect_uris AS "postLogoutRedirectUris",
          grant_types AS "grantTypes", response_types AS "responseTypes", scopes,
          token_endpoint_auth_method AS "tokenEndpointAuthMethod", pkce_required AS "pkceRequired",
          agent_sign_in AS "agentSignIn", id_token_signed_response_alg AS "idTokenSignedResponseAlg",
          backchannel_logout_uri AS "backchannelLogoutUri", jwks, secret_encrypted AS "secretEncrypted"
        FROM oidc_clients WHERE environment_id = ${environmentId} AND client_id = ${clientId} AND active`),

    /** Those of `clientIds` that are active and have a back-channel logout URI. */
    withBackChannelLogout: async (clientIds: string[]) => [
      ...(await db.anyFirst(sql.type(z.object({ clientId: z.string() }))`
        SELECT client_id AS "clientId" FROM oidc_clients
        WHERE environment_id = ${environmentId} AND client_id = ANY(${sql.array(clientIds, 'text')}) AND active AND backchannel_logout_uri IS NOT NULL`)),
    ],
  };
}
