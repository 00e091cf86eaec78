// Trust-store entries and keys made through the API, in a new project's environment, and key pairs to sign proofs.
import { exportJWK, generateKeyPair } from 'jose';
import { expect } from 'vitest';
import { bearer, type TestApp } from './app.ts';
import { newEnvironments } from './fixtures.ts';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** A new environment and `call(method, path, body?)` on its trust store (`path` after …/mcp/trust-store). */
export async function trustStoreEnvironment(t: TestApp, token?: string) {
  const auth = token ?? (await t.token());
  const { tenantId, environmentIds } = await newEnvironments(t, auth);
  const environmentId = environmentIds[0]!;
  const base = `/v1/tenants/${tenantId}/environments/${environmentId}/mcp/trust-store`;
  const call = async (method: Method, path = '', payload?: unknown, as = auth) => {
    const res = await t.app.inject({ method, url: `${base}${path}`, headers: bearer(as), ...(payload !== undefined ? { payload: payload as object } : {}) });
    return { status: res.statusCode, body: res.body ? res.json() : undefined, headers: res.headers };
  };
  const create = async (body: Record<string, unknown>) => {
    const res = await call('POST', '', { name: 'Entry', ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.entry as Record<string, unknown> & { id: string };
  };
  return { tenantId, environmentId, base, call, create, token: auth };
}

/** A signing key pair: the private key, and its public JWK as the trust store takes it. */
export async function keyPair(alg: 'ES256' | 'EdDSA' | 'RS256' = 'ES256') {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  return {
    privateKey,
    alg,
    jwk: (await exportJWK(publicKey)) as Record<string, unknown>,
    privateJwk: (await exportJWK(privateKey)) as Record<string, unknown>,
  };
}
