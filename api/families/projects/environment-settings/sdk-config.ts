// What a developer needs to sign users in with the environment's OpenID provider: the issuer, oidc-provider's
// endpoints under it (its default routes), a client id (the one asked for, else the first active client) and the
// environment variables to set, with warnings about setup still missing. Never a secret.
import type { CommonQueryMethods } from 'slonik';
import { createClientAllowlistQueries } from '../../../../db/oidc/client-allowlist/queries.ts';
import { createOidcClientQueries } from '../../../../db/oidc/clients/queries.ts';
import type { EnvironmentCaller } from '../../../access/caller.ts';
import type { EnvironmentSdkConfig } from './schemas.ts';

/** oidc-provider's default routes (its `routes` configuration), relative to the issuer. */
const ROUTES = {
  discovery: '/.well-known/openid-configuration',
  authorization: '/auth',
  token: '/token',
  userinfo: '/me',
  jwks: '/jwks',
  end_session: '/session/end',
  introspection: '/token/introspection',
  revocation: '/token/revocation',
  pushed_authorization_request: '/request',
};

export async function sdkConfig(db: CommonQueryMethods, publicBaseUrl: string, caller: EnvironmentCaller, asked?: string): Promise<EnvironmentSdkConfig> {
  const { environmentId } = caller.scope;
  const issuer = `${publicBaseUrl}/v1/oidc/${environmentId}`;
  const settings = `/v1/tenants/${caller.scope.tenant.id}/environments/${environmentId}`;
  const clients = createOidcClientQueries(db, environmentId);
  const found = asked ? await clients.find(asked) : null;
  const client = found ?? (await clients.firstActive());
  const allowlist = (await createClientAllowlistQueries(db, environmentId).list()).map((e) => e.clientId);
  const redirectUri = client?.redirectUris[0];

  const warnings: string[] = [];
  if (asked && !found) warnings.push(`${asked} is not an OIDC client of this environment: the first active client is shown instead.`);
  if (!client) warnings.push(`No OIDC client is registered: register one (POST ${settings}/oidc/clients).`);
  else {
    if (!client.active) warnings.push(`The client ${client.clientId} is not active: it cannot sign users in.`);
    if (!redirectUri)
      warnings.push(`The client ${client.clientId} has no redirect URI: it can sign no user in (PATCH ${settings}/oidc/clients/${client.clientId}).`);
    if (allowlist.length > 0 && !allowlist.includes(client.clientId)) {
      warnings.push(
        `The client ${client.clientId} is not in the environment's client allowlist: it cannot sign users in (PUT ${settings}/oidc/client-allowlist).`,
      );
    }
  }
  return {
    clientId: client?.clientId ?? null,
    endpoints: { issuer, ...Object.fromEntries(Object.entries(ROUTES).map(([name, route]) => [name, `${issuer}${route}`])) },
    envVars: {
      OIDC_ISSUER: issuer,
      ...(client ? { OIDC_CLIENT_ID: client.clientId } : {}),
      ...(redirectUri ? { OIDC_REDIRECT_URI: redirectUri } : {}),
    },
    warnings,
  };
}
