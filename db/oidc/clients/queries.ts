// OIDC clients of an environment. The secret is sealed with the master key (the provider compares and signs with
// it); what leaves through the API is an OidcClient, with the secret's display prefix only.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { OidcClient, type AuthMethod, type GrantType } from './rows.ts';
import { selectPage, type PageRequest } from '../../shared/pages.ts';

const columns = sql.fragment`
  c.id, c.client_id AS "clientId", c.name, c.environment_id AS "environmentId", c.description, c.logo_uri AS "logoUri",
  c.client_uri AS "clientUri", c.policy_uri AS "policyUri", c.tos_uri AS "tosUri", c.redirect_uris AS "redirectUris",
  c.post_logout_redirect_uris AS "postLogoutRedirectUris", c.grant_types AS "grantTypes", c.response_types AS "responseTypes",
  c.scopes, c.token_endpoint_auth_method AS "tokenEndpointAuthMethod", c.pkce_required AS "pkceRequired",
  c.agent_sign_in AS "agentSignIn", c.id_token_signed_response_alg AS "idTokenSignedResponseAlg",
  c.backchannel_logout_uri AS "backchannelLogoutUri", c.jwks, c.secret_prefix AS "secretPrefix",
  c.dynamically_registered AS "dynamicallyRegistered", c.active, c.created_at AS "createdAt", c.updated_at AS "updatedAt"`;

/** Everything about a client its owner sets (register, update), validated. */
export interface ClientSettings {
  name: string;
  description: string | null;
  logoUri: string | null;
  clientUri: string | null;
  policyUri: string | null;
  tosUri: string | null;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  grantTypes: GrantType[];
  responseTypes: string[];
  scopes: string[];
  tokenEndpointAuthMethod: AuthMethod;
  pkceRequired: boolean;
  agentSignIn: boolean;
  idTokenSignedResponseAlg: 'ES256' | 'RS256';
  backchannelLogoutUri: string | null;
  jwks: { keys: Record<string, unknown>[] } | null;
}

/** A client secret as stored: sealed (AES-256-GCM under the master key) and its display prefix. */
export interface StoredSecret {
  encrypted: string;
  prefix: string;
}

const text = (values: string[]) => sql.array(values, 'text');
const jsonb = (value: object | null) => (value === null ? null : sql.jsonb(value as never));

const settingColumns = (s: ClientSettings) => [
  sql.fragment`name = ${s.name}`,
  sql.fragment`description = ${s.description}`,
  sql.fragment`logo_uri = ${s.logoUri}`,
  sql.fragment`client_uri = ${s.clientUri}`,
  sql.fragment`policy_uri = ${s.policyUri}`,
  sql.fragment`tos_uri = ${s.tosUri}`,
  sql.fragment`redirect_uris = ${text(s.redirectUris)}`,
  sql.fragment`post_logout_redirect_uris = ${text(s.postLogoutRedirectUris)}`,
  sql.fragment`grant_types = ${text(s.grantTypes)}`,
  sql.fragment`response_types = ${text(s.responseTypes)}`,
  sql.fragment`scopes = ${text(s.scopes)}`,
  sql.fragment`token_endpoint_auth_method = ${s.tokenEndpointAuthMethod}`,
  sql.fragment`pkce_required = ${s.pkceRequired}`,
  sql.fragment`id_token_signed_response_alg = ${s.idTokenSignedResponseAlg}`,
  sql.fragment`backchannel_logout_uri = ${s.backchannelLogoutUri}`,
  sql.fragment`jwks = ${jsonb(s.jwks)}`,
];

const secretColumns = (secret: StoredSecret | null) => [
  sql.fragment`secret_encrypted = ${secret?.encrypted ?? null}`,
  sql.fragment`secret_prefix = ${secret?.prefix ?? null}`,
];

/** Queries of one environment's OIDC clients: every statement is bound to `environmentId`. */
export function createOidcClientQueries(db: CommonQueryMethods, environmentId: string) {
  const byClientId = (clientId: string) =>
    db.one(sql.type(OidcClient)`SELECT ${columns} FROM oidc_clients c WHERE c.environment_id = ${environmentId} AND c.client_id = ${clientId}`);
  return {
    /** The client with that public client_id; `lock` holds its row until the transaction ends. */
    find: (clientId: string, options: { lock?: boolean } = {}) =>
      db.maybeOne(sql.type(OidcClient)`
        SELECT ${columns} FROM oidc_clients c WHERE c.environment_id = ${environmentId} AND c.client_id = ${clientId}
        ${options.lock ? sql.fragment`FOR UPDATE` : sql.fragment``}`),

    findPage: (page: PageRequest) =>
      selectPage(
        db,
        OidcClient,
        sql.fragment`SELECT ${columns} FROM oidc_clients c WHERE c.environment_id = ${environmentId}`,
        sql.fragment`c.created_at, c.id`,
        page,
      ),

    /** The oldest active client, for a developer who did not say which one. */
    firstActive: () =>
      db.maybeOne(sql.type(OidcClient)`
        SELECT ${columns} FROM oidc_clients c WHERE c.environment_id = ${environmentId} AND c.active ORDER BY c.created_at, c.id LIMIT 1`),

    insert: async (clientId: string, s: ClientSettings, secret: StoredSecret | null) => {
      await db.query(sql.unsafe`
        INSERT INTO oidc_clients (environment_id, client_id, name, description, logo_uri, client_uri, policy_uri, tos_uri, redirect_uris,
          post_logout_redirect_uris, grant_types, response_types, scopes, token_endpoint_auth_method, pkce_required, agent_sign_in,
          id_token_signed_response_alg, backchannel_logout_uri, jwks, secret_encrypted, secret_prefix)
        VALUES (${environmentId}, ${clientId}, ${s.name}, ${s.description}, ${s.logoUri}, ${s.clientUri}, ${s.policyUri}, ${s.tosUri},
          ${text(s.redirectUris)}, ${text(s.postLogoutRedirectUris)}, ${text(s.grantTypes)}, ${text(s.responseTypes)}, ${text(s.scopes)},
          ${s.tokenEndpointAuthMethod}, ${s.pkceRequired}, ${s.agentSignIn}, ${s.idTokenSignedResponseAlg}, ${s.backchannelLogoutUri},
          ${jsonb(s.jwks)}, ${secret?.encrypted ?? null}, ${secret?.prefix ?? null})`);
      return byClientId(clientId);
    },

    /** Writes the settings; `secret` undefined keeps the stored one, null removes it. */
    update: async (clientId: string, s: ClientSettings, secret: StoredSecret | null | undefined) => {
      const sets = [...settingColumns(s), ...(secret === undefined ? [] : secretColumns(secret)), sql.fragment`updated_at = now()`];
      await db.query(
        sql.unsafe`UPDATE oidc_clients SET ${sql.join(sets, sql.fragment`, `)} WHERE environment_id = ${environmentId} AND client_id = ${clientId}`,
      );
      return byClientId(clientId);
    },

    setSecret: async (clientId: string, secret: StoredSecret) => {
      await db.query(sql.unsafe`
        UPDATE oidc_clients SET ${sql.join([...secretColumns(secret), sql.fragment`updated_at = now()`], sql.fragment`, `)}
        WHERE environment_id = ${environmentId} AND client_id = ${clientId}`);
      return byClientId(clientId);
    },

    delete: (clientId: string) => db.query(sql.unsafe`DELETE FROM oidc_clients WHERE environment_id = ${environmentId} AND client_id = ${clientId}`),

    /** Which of `clientIds` are clients of the environment. */
    existing: async (clientIds: string[]) =>
      new Set(
        await db.anyFirst(sql.type(z.object({ clientId: z.string() }))`
          SELECT client_id AS "clientId" FROM oidc_clients WHERE environment_id = ${environmentId} AND client_id = ANY(${text(clientIds)})`),
      ),
  };
}
