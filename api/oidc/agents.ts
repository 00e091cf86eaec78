// Agents of the trust store as clients of the environment's OpenID provider (RFC 7523): a verified `agent` entry is
// the client whose `client_id` is its subject, authenticating with `private_key_jwt` by the public keys registered
// for it (active ones, and retiring ones until they retire), for the client_credentials grant only. The provider's
// adapter asks here for a client id that is not in `oidc_clients`, on every look-up, so an entry suspended, revoked
// or deleted, or a key rotated, is seen at the next token request.
import type { ClientMetadata } from 'oidc-provider';
import type { CommonQueryMethods } from 'slonik';
import { createOidcTrustStoreQueries, type AgentClient } from '../../db/oidc/agents/queries.ts';

/** The client metadata of a verified agent entry. */
export const agentClientMetadata = (agent: AgentClient): ClientMetadata => ({
  client_id: agent.subject,
  client_name: agent.name,
  token_endpoint_auth_method: 'private_key_jwt',
  grant_types: ['client_credentials'],
  response_types: [],
  redirect_uris: [],
  jwks: { keys: agent.keys as never },
});

/** The agent client `clientId` of the environment, or undefined (no verified agent entry has that subject). */
export async function findAgentClient(db: CommonQueryMethods, environmentId: string, clientId: string): Promise<ClientMetadata | undefined> {
  const agent = await createOidcTrustStoreQueries(db, environmentId).verifiedAgent(clientId);
  return agent ? agentClientMetadata(agent) : undefined;
}
