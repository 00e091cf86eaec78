// Agents of the trust store with a key pair (inserted directly: the trust-store API lives in another family), and
// their token requests with private_key_jwt (RFC 7523): a client assertion signed by hand with jose, so a test sees
// the token endpoint's exact answer.
import { SignJWT, type CryptoKey } from 'jose';
import { sql } from 'slonik';
import type { TestApp } from './app.ts';
import { keyPair } from './trust-store.ts';
import { seedTrustStore, type EntrySeed } from './trust-store-seed.ts';

export interface SeededAgent {
  subject: string;
  entryId: string;
  kid: string;
  privateKey: CryptoKey;
  /** The private key as a JWK (for clients that take one, like the MCP SDK's PrivateKeyJwtProvider). */
  privateJwk: Record<string, unknown>;
  alg: 'ES256' | 'EdDSA' | 'RS256';
}

/** A key pair registered for an entry (status `active` unless said). */
export async function addAgentKey(t: TestApp, environmentId: string, entryId: string, alg: SeededAgent['alg'] = 'ES256', status = 'active') {
  const pair = await keyPair(alg);
  const kid = `k-${crypto.randomUUID()}`;
  const jwk = { ...pair.jwk, kid, alg, use: 'sig' };
  await t.pool.query(sql.unsafe`
    INSERT INTO trust_store_keys (entry_id, environment_id, kid, jwk, alg, status, retires_at, revoked_at)
    VALUES (${entryId}, ${environmentId}, ${kid}, ${sql.jsonb(jwk)}, ${alg}, ${status},
      ${status === 'retiring' ? sql.fragment`now() + interval '1 hour'` : null}, ${status === 'revoked' ? sql.fragment`now()` : null})`);
  return { kid, privateKey: pair.privateKey, privateJwk: pair.privateJwk, alg };
}

/** A verified agent (unless `status` says otherwise) with one active ES256 key. */
export async function seedAgent(t: TestApp, environmentId: string, seed: Partial<EntrySeed> = {}): Promise<SeededAgent> {
  const subject = seed.subject ?? `spiffe://example.com/agent/${crypto.randomUUID().slice(0, 8)}`;
  const ids = await seedTrustStore(t.pool, environmentId, [{ allowedTools: ['search'], ...seed, subject, kind: 'agent' }]);
  const entryId = ids[subject]!;
  return { subject, entryId, ...(await addAgentKey(t, environmentId, entryId)) };
}

/** A client assertion of `agent` for the issuer (RFC 7523 §3), signed with `key` (the agent's own by default). */
export const clientAssertion = (issuer: string, agent: Pick<SeededAgent, 'subject' | 'kid' | 'privateKey' | 'alg'>, claims: Record<string, unknown> = {}) =>
  new SignJWT({ ...claims })
    .setProtectedHeader({ alg: agent.alg, kid: agent.kid })
    .setIssuer(agent.subject)
    .setSubject(agent.subject)
    .setAudience(issuer)
    .setJti(crypto.randomUUID())
    .setIssuedAt()
    .setExpirationTime('1m')
    .sign(agent.privateKey);

/** POST {issuer}/token: client_credentials for `agent` with a fresh assertion; the status and JSON body. */
export async function agentTokenRequest(issuer: string, agent: SeededAgent, params: Record<string, string> = {}) {
  const body = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: agent.subject,
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: await clientAssertion(issuer, agent),
    ...params,
  });
  const res = await fetch(`${issuer}/token`, { method: 'POST', body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
