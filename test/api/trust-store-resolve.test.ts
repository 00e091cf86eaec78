// Runtime resolution of a subject (GET /v1/mcp/trust-store/resolve) with an environment API secret of purpose `mcp`:
// the entry's status, the JWK Set of its active and retiring keys, its tools and pin, with a strong ETag (304 on a
// match) that changes with every change of the entry or its keys, on the next request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiSecret } from '../helpers/access-model.ts';
import { keyPair, trustStoreEnvironment } from '../helpers/trust-store.ts';

let t: TestApp;
let env: Awaited<ReturnType<typeof trustStoreEnvironment>>;
let secret: string;

beforeAll(async () => {
  t = await startTestApp();
  env = await trustStoreEnvironment(t);
  secret = (await createApiSecret(t.pool, env.environmentId, ['mcp'])).secret;
});
afterAll(() => t.close());

const resolve = async (subject: string, headers: Record<string, string> = {}, auth = secret) => {
  const res = await t.app.inject({
    method: 'GET',
    url: '/v1/mcp/trust-store/resolve',
    query: { subject },
    headers: { authorization: `Bearer ${auth}`, ...headers },
  });
  return { status: res.statusCode, body: res.body ? res.json() : undefined, headers: res.headers };
};

describe('trust-store resolution', () => {
  it('answers the entry with its keys as a JWK Set, a strong ETag and revalidation caching', async () => {
    const entry = await env.create({
      kind: 'mcp_server',
      subject: 'https://tools.example.com/mcp',
      allowedTools: ['search'],
      toolManifestHash: `sha256:${'b'.repeat(64)}`,
    });
    const { jwk } = await keyPair();
    const key = (await env.call('POST', `/${entry.id}/keys`, { jwk })).body.key;
    const res = await resolve('https://tools.example.com/mcp');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      subject: 'https://tools.example.com/mcp',
      kind: 'mcp_server',
      status: 'pending',
      keys: { keys: [{ ...jwk, kid: key.kid, alg: 'ES256', use: 'sig' }] },
      allowedTools: ['search'],
      toolManifestHash: `sha256:${'b'.repeat(64)}`,
      manifestPinnedAt: entry.manifestPinnedAt,
    });
    expect(res.headers.etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(res.headers['cache-control']).toBe('private, max-age=0, must-revalidate');
    expect(res.headers['content-type']).toMatch(/^application\/json/);

    const again = await resolve('https://tools.example.com/mcp', { 'if-none-match': res.headers.etag as string });
    expect(again.status).toBe(304);
    expect(again.body).toBeUndefined();
    expect(again.headers['content-length'] ?? '0').toBe('0'); // a client reads no body after a 304
    expect(again.headers.etag).toBe(res.headers.etag);
    expect((await resolve('https://tools.example.com/mcp', { 'if-none-match': `"other", W/${res.headers.etag as string}` })).status).toBe(304);
    expect((await resolve('https://tools.example.com/mcp', { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('sees every change on the next request: a new ETag after an update, a rotation, a revocation', async () => {
    const entry = await env.create({ kind: 'agent', subject: 'agent-changes' });
    const first = await resolve('agent-changes');
    const etags = [first.headers.etag];
    await env.call('PATCH', `/${entry.id}`, { allowedTools: ['a'] });
    const updated = await resolve('agent-changes', { 'if-none-match': first.headers.etag as string });
    expect(updated.status).toBe(200);
    expect(updated.body.allowedTools).toEqual(['a']);
    etags.push(updated.headers.etag);

    const old = (await env.call('POST', `/${entry.id}/keys`, { jwk: (await keyPair()).jwk })).body.key;
    etags.push((await resolve('agent-changes')).headers.etag);
    const rotated = await env.call('POST', `/${entry.id}/keys/rotate`, { jwk: (await keyPair('EdDSA')).jwk, gracePeriodSeconds: 600 });
    const both = await resolve('agent-changes');
    expect(both.body.keys.keys.map((k: { kid: string }) => k.kid)).toEqual([old.kid, rotated.body.key.kid]);
    etags.push(both.headers.etag);
    await env.call('POST', `/${entry.id}/keys/${old.id}/revoke`);
    const one = await resolve('agent-changes');
    expect(one.body.keys.keys.map((k: { kid: string }) => k.kid)).toEqual([rotated.body.key.kid]);
    etags.push(one.headers.etag);

    await env.call('POST', `/${entry.id}/revoke`);
    const revoked = await resolve('agent-changes');
    expect(revoked.body).toMatchObject({ status: 'revoked', keys: { keys: [] } });
    etags.push(revoked.headers.etag);
    expect(new Set(etags).size).toBe(etags.length);

    await env.call('DELETE', `/${entry.id}`);
    expect((await resolve('agent-changes')).status).toBe(404);
  });

  it('answers 404 for an unknown subject and for a subject of another environment', async () => {
    expect(await resolve('nobody')).toMatchObject({ status: 404, body: { code: 'trust_store.not_found' } });
    const other = await trustStoreEnvironment(t);
    await other.create({ kind: 'agent', subject: 'only-there' });
    const theirs = (await createApiSecret(t.pool, other.environmentId, ['mcp'])).secret;
    expect((await resolve('only-there', {}, theirs)).status).toBe(200);
    expect((await resolve('only-there')).status).toBe(404);
  });

  it('needs an environment API secret with the purpose mcp, as the AuthZEN routes do', async () => {
    await env.create({ kind: 'agent', subject: 'agent-auth' });
    const authzenOnly = (await createApiSecret(t.pool, env.environmentId, ['authzen'])).secret;
    expect(await resolve('agent-auth', {}, authzenOnly)).toMatchObject({ status: 403, body: { code: 'auth.secret_purpose' } });
    expect(await resolve('agent-auth', {}, 'adenv_nope')).toMatchObject({ status: 401 });
    expect((await resolve('agent-auth', {}, await t.token())).status).toBe(401);
    const res = await t.app.inject({ method: 'GET', url: '/v1/mcp/trust-store/resolve?subject=agent-auth' });
    expect(res.statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/v1/mcp/trust-store/resolve', headers: { authorization: `Bearer ${secret}` } })).statusCode).toBe(400);
  });
});
