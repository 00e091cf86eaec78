// Clients that registered themselves (RFC 7591 dynamic client registration) stored with the environment's other
// OIDC clients (`oidc_clients`, `dynamically_registered = true`), so the clients API lists and manages them.
import { sql, type CommonQueryMethods } from 'slonik';

export interface RegisteredClient {
  clientId: string;
  name: string;
  logoUri: string | null;
  clientUri: string | null;
  policyUri: string | null;
  tosUri: string | null;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  grantTypes: string[];
  responseTypes: string[];
  /** Null: the table's default scopes. */
  scopes: string[] | null;
  tokenEndpointAuthMethod: string;
  jwks: Record<string, unknown> | null;
  secretEncrypted: string | null;
  secretPrefix: string | null;
}

const texts = (values: string[]) => sql.array(values, 'text');

/** Registration writes of one environment: every statement is bound to `environmentId`. */
export function createOidcRegistrationClientQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    insert: (c: RegisteredClient) =>
      db.query(sql.unsafe`
        INSERT INTO oidc_clients (environment_id, client_id, name, logo_uri, client_uri, policy_uri, tos_uri, redirect_uris,
          post_logout_redirect_uris, grant_types, response_types, scopes, token_endpoint_auth_method, pkce_required, jwks,
          secret_encrypted, secret_prefix, dynamically_registered)
        VALUES (${environmentId}, ${c.clientId}, ${c.name}, ${c.logoUri}, ${c.clientUri}, ${c.policyUri}, ${c.tosUri}, ${texts(c.redirectUris)},
          ${texts(c.postLogoutRedirectUris)}, ${texts(c.grantTypes)}, ${texts(c.responseTypes)},
          ${c.scopes ? texts(c.scopes) : sql.fragment`DEFAULT`}, ${c.tokenEndpointAuthMethod}, true,
          ${c.jwks ? sql.jsonb(c.jwks as never) : null}, ${c.secretEncrypted}, ${c.secretPrefix}, true)`),
  };
}
