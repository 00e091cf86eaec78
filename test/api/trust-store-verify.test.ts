// Verification of trust-store entries: proof of possession (a challenge nonce signed into a JWT by one of the
// entry's keys) and, for an MCP server named by its URL, its tool manifest read from a real MCP server (the SDK's
// McpServer) and compared with the pin by the RFC 8785 hash.
import { createHash } from 'node:crypto';
import { SignJWT, type CryptoKey } from 'jose';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifestHash } from '../../lib/mcp/manifest-hash.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { startMcpServer, type TestMcpServer } from '../helpers/mcp-server.ts';
import { keyPair, trustStoreEnvironment } from '../helpers/trust-store.ts';

let t: TestApp;
let env: Awaited<ReturnType<typeof trustStoreEnvironment>>;
let mcp: TestMcpServer;

const SEARCH = { name: 'search', description: 'Search the docs', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } };
const FETCH = { name: 'fetch', description: 'Fetch a page', inputSchema: { type: 'object', properties: { url: { type: 'string' } } } };
// SEARCH as RFC 8785 canonical JSON, written out by hand: members sorted by key, no whitespace.
const SEARCH_CANONICAL =
  '[{"description":"Search the docs","inputSchema":{"properties":{"q":{"type":"string"}},"required":["q"],"type":"object"},"name":"search"}]';
const SEARCH_HASH = `sha256:${createHash('sha256').update(SEARCH_CANONICAL).digest('hex')}`;

beforeAll(async () => {
  t = await startTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true', MCP_VERIFY_TIMEOUT_MS: '3000' });
  env = await trustStoreEnvironment(t);
  mcp = await startMcpServer([SEARCH]);
});
afterAll(async () => {
  await mcp.close();
  await t.close();
});

async function challenge(entryId: string) {
  const res = await env.call('POST', `/${entryId}/verify/challenge`);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.challenge as { nonce: string; audience: string; expiresAt: string };
}

async function proof(key: { privateKey: CryptoKey; alg: string }, claims: { nonce: string; aud: string; sub: string }, kid?: string, lifetime = '2m') {
  return new SignJWT({ nonce: claims.nonce })
    .setProtectedHeader({ alg: key.alg, ...(kid ? { kid } : {}) })
    .setAudience(claims.aud)
    .setSubject(claims.sub)
    .setIssuedAt()
    .setExpirationTime(lifetime)
    .sign(key.privateKey);
}

/** An RS256 JWT whose "signature" is the PKCS#1 v1.5 encoding itself: what verifies under a public exponent of 1. */
function forgeExponentOneProof(n: string, claims: { nonce: string; aud: string; sub: string; kid: string }) {
  const now = Math.floor(Date.now() / 1000);
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: 'RS256', kid: claims.kid })}.${part({ nonce: claims.nonce, aud: claims.aud, sub: claims.sub, iat: now, exp: now + 120 })}`;
  const digestInfo = Buffer.concat([Buffer.from('3031300d060960864801650304020105000420', 'hex'), createHash('sha256').update(input).digest()]);
  const k = Buffer.from(n, 'base64url').length;
  const encoded = Buffer.concat([Buffer.from([0, 1]), Buffer.alloc(k - digestInfo.length - 3, 0xff), Buffer.from([0]), digestInfo]);
  return `${input}.${encoded.toString('base64url')}`;
}

async function keyedEntry(subject: string) {
  const entry = await env.create({ kind: 'agent', subject });
  const key = await keyPair();
  const added = await env.call('POST', `/${entry.id}/keys`, { jwk: key.jwk });
  return { entry, key, kid: added.body.key.kid as string };
}

describe('manifest hash', () => {
  it('is the SHA-256 of the RFC 8785 canonical JSON of the tools array', () => {
    expect(manifestHash([SEARCH])).toBe(SEARCH_HASH);
    expect(manifestHash([{ ...SEARCH, name: 'search' }])).toBe(manifestHash([JSON.parse(JSON.stringify(SEARCH))]));
  });
});

describe('proof of possession', () => {
  it('verifies an entry whose key signed a fresh challenge, with one event', async () => {
    const { entry, key, kid } = await keyedEntry('spiffe://example.org/agent/pop');
    const c = await challenge(entry.id);
    expect(c.audience).toBe(`${t.config.publicBaseUrl}${env.base}/${entry.id}/verify`);
    const res = await env.call('POST', `/${entry.id}/verify`, {
      proof: await proof(key, { nonce: c.nonce, aud: c.audience, sub: entry.subject as string }, kid),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.verification).toEqual({
      verified: true,
      proofOfPossession: { kid },
      observedManifestHash: null,
      pinnedManifestHash: null,
      manifestMatches: null,
      tools: null,
      failure: null,
    });
    expect(res.body.entry).toMatchObject({ status: 'verified', verifiedAt: expect.any(String) });
    const events = (await tenantEvents(t, env.tenantId)).filter((e) => (e.data.entry as { id?: string } | undefined)?.id === entry.id);
    expect(events.map((e) => e.type)).toEqual(['mcp.trust_store.entry.created', 'mcp.trust_store.entry.challenged', 'mcp.trust_store.entry.verified']);
    expect(JSON.stringify(events[1]!.data)).not.toContain(c.nonce);
  });

  it('refuses a replayed nonce, a wrong key, a wrong audience or subject, an expired or long-lived proof, naming what failed', async () => {
    const { entry, key, kid } = await keyedEntry('agent-refusals');
    const sub = entry.subject as string;
    const verify = (p: string | undefined) => env.call('POST', `/${entry.id}/verify`, p === undefined ? {} : { proof: p });
    const refused = async (p: string | undefined, code: string, message: RegExp) => {
      const res = await verify(p);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.code).toBe(code);
      expect(res.body.details[0]).toEqual({ path: 'body.proof', message: expect.stringMatching(message) });
    };
    await refused(undefined, 'request.invalid', /required/);
    await refused('not-a-jwt', 'trust_store.proof_invalid', /compact JWS/);

    const c1 = await challenge(entry.id);
    const stranger = await keyPair();
    await refused(await proof(stranger, { nonce: c1.nonce, aud: c1.audience, sub }), 'trust_store.proof_invalid', /signature/);
    await refused(await proof(stranger, { nonce: c1.nonce, aud: c1.audience, sub }, 'unknown-kid'), 'trust_store.proof_invalid', /no key of the entry/);
    await refused(await proof(key, { nonce: c1.nonce, aud: 'https://elsewhere.example', sub }, kid), 'trust_store.proof_invalid', /aud/);
    await refused(await proof(key, { nonce: c1.nonce, aud: c1.audience, sub: 'someone-else' }, kid), 'trust_store.proof_invalid', /sub/);
    await refused(await proof(key, { nonce: c1.nonce, aud: c1.audience, sub }, kid, '-1m'), 'trust_store.proof_invalid', /expired/);
    await refused(await proof(key, { nonce: c1.nonce, aud: c1.audience, sub }, kid, '10m'), 'trust_store.proof_invalid', /exceeds 300 seconds/);
    await refused(await proof(key, { nonce: 'made-up', aud: c1.audience, sub }, kid), 'trust_store.nonce_invalid', /not issued/);

    // The issuer is an accepted audience too; the nonce is then used up: a replay is refused.
    const good = await proof(key, { nonce: c1.nonce, aud: t.config.publicBaseUrl, sub }, kid);
    expect((await verify(good)).status).toBe(200);
    await refused(good, 'trust_store.nonce_invalid', /already used/);
    // A nonce of another entry is not one of this entry's.
    const other = await keyedEntry('agent-other');
    const c2 = await challenge(other.entry.id);
    await refused(await proof(key, { nonce: c2.nonce, aud: c1.audience, sub }, kid), 'trust_store.nonce_invalid', /not issued/);
  });

  it('uses a nonce once, also when the same proof is sent twice at the same time', async () => {
    const { entry, key, kid } = await keyedEntry('agent-race');
    const c = await challenge(entry.id);
    const p = await proof(key, { nonce: c.nonce, aud: c.audience, sub: entry.subject as string }, kid);
    const answers = await Promise.all([1, 2].map(() => env.call('POST', `/${entry.id}/verify`, { proof: p })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 400]);
    expect(answers.find((a) => a.status === 400)!.body.code).toBe('trust_store.nonce_invalid');
  });

  it('accepts a retiring key after a rotation and refuses a revoked one', async () => {
    const { entry, key, kid } = await keyedEntry('agent-rotated');
    const next = await keyPair('EdDSA');
    const rotated = await env.call('POST', `/${entry.id}/keys/rotate`, { jwk: next.jwk, gracePeriodSeconds: 600 });
    const sub = entry.subject as string;
    let c = await challenge(entry.id);
    expect((await env.call('POST', `/${entry.id}/verify`, { proof: await proof(key, { nonce: c.nonce, aud: c.audience, sub }, kid) })).status).toBe(200);
    await env.call('POST', `/${entry.id}/keys/${rotated.body.retiring[0].id}/revoke`);
    c = await challenge(entry.id);
    const res = await env.call('POST', `/${entry.id}/verify`, { proof: await proof(key, { nonce: c.nonce, aud: c.audience, sub }, kid) });
    expect(res.body.details[0].message).toMatch(/which is revoked/);
    const newKid = rotated.body.key.kid as string;
    expect((await env.call('POST', `/${entry.id}/verify`, { proof: await proof(next, { nonce: c.nonce, aud: c.audience, sub }, newKid) })).status).toBe(200);
  });

  it('does not verify with a forged proof over an RSA key of exponent 1, refused when added and skipped when stored', async () => {
    const entry = await env.create({ kind: 'agent', subject: 'agent-exponent-one' });
    const { jwk } = await keyPair('RS256');
    const weak = { kty: 'RSA', n: jwk.n as string, e: 'AQ', kid: 'weak', alg: 'RS256', use: 'sig' };
    const added = await env.call('POST', `/${entry.id}/keys`, { jwk: weak });
    expect(added.status, JSON.stringify(added.body)).toBe(400);
    expect(added.body.details).toEqual([{ path: 'body.jwk.e', message: expect.stringMatching(/65537/) }]);
    // A key stored before keys were checked: the proof is made without any private key (s^1 mod n = s).
    await t.pool.query(sql.unsafe`
      INSERT INTO trust_store_keys (entry_id, environment_id, kid, jwk, alg)
      VALUES (${entry.id}, ${env.environmentId}, 'weak', ${sql.jsonb(weak)}, 'RS256')`);
    const c = await challenge(entry.id);
    const forged = forgeExponentOneProof(weak.n, { nonce: c.nonce, aud: c.audience, sub: entry.subject as string, kid: 'weak' });
    const res = await env.call('POST', `/${entry.id}/verify`, { proof: forged });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toMatchObject({
      code: 'trust_store.proof_invalid',
      details: [{ path: 'body.proof', message: expect.stringMatching(/weak is not a valid public key/) }],
    });
    expect((await env.call('GET', `/${entry.id}`)).body.entry.status).not.toBe('verified');
  });

  it('has nothing to verify on an entry without keys that is not an MCP server URL', async () => {
    const entry = await env.create({ kind: 'agent', subject: 'agent-keyless' });
    expect(await env.call('POST', `/${entry.id}/verify`, {})).toMatchObject({ status: 409, body: { code: 'trust_store.nothing_to_verify' } });
  });
});

describe('MCP tool manifest', () => {
  it('reads tools/list of a real MCP server and reports the RFC 8785 hash; verifies without a pin', async () => {
    mcp.setTools([SEARCH]);
    const entry = await env.create({ kind: 'mcp_server', subject: mcp.url });
    const res = await env.call('POST', `/${entry.id}/verify`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.verification).toEqual({
      verified: true,
      proofOfPossession: null,
      observedManifestHash: SEARCH_HASH,
      pinnedManifestHash: null,
      manifestMatches: null,
      tools: ['search'],
      failure: null,
    });
    expect(res.body.entry.status).toBe('verified');
  });

  it('verifies against the pin, then refuses once the server exposes other tools (read over every page, answered as SSE)', async () => {
    const other = await startMcpServer([SEARCH], { sse: true });
    try {
      const entry = await env.create({ kind: 'mcp_server', subject: other.url, toolManifestHash: SEARCH_HASH });
      const first = await env.call('POST', `/${entry.id}/verify`);
      expect(first.body.verification).toMatchObject({ verified: true, manifestMatches: true, observedManifestHash: SEARCH_HASH });

      other.setTools([SEARCH, FETCH], 1); // two pages of one tool
      const calls = other.listCalls;
      const second = await env.call('POST', `/${entry.id}/verify`);
      expect(other.listCalls - calls).toBe(2);
      expect(second.body.verification).toEqual({
        verified: false,
        proofOfPossession: null,
        observedManifestHash: manifestHash([SEARCH, FETCH]),
        pinnedManifestHash: SEARCH_HASH,
        manifestMatches: false,
        tools: ['search', 'fetch'],
        failure: 'the observed tool manifest differs from the pinned one',
      });
      // Pinning what it now exposes verifies it again.
      await env.call('PATCH', `/${entry.id}`, { toolManifestHash: manifestHash([SEARCH, FETCH]) });
      expect((await env.call('POST', `/${entry.id}/verify`)).body.verification).toMatchObject({ verified: true, manifestMatches: true });
    } finally {
      await other.close();
    }
  });

  it('does not verify an unreachable server, and refuses private targets unless allowed', async () => {
    const entry = await env.create({ kind: 'mcp_server', subject: 'http://127.0.0.1:9/mcp' });
    const down = await env.call('POST', `/${entry.id}/verify`);
    expect(down.status).toBe(200);
    expect(down.body.verification).toMatchObject({
      verified: false,
      observedManifestHash: null,
      failure: expect.stringMatching(/tools\/list could not be read/),
    });
    expect(down.body.entry.status).toBe('pending');

    const guarded = await startTestApp();
    try {
      const e = await trustStoreEnvironment(guarded);
      const server = await e.create({ kind: 'mcp_server', subject: mcp.url });
      const calls = mcp.listCalls;
      const res = await e.call('POST', `/${server.id}/verify`);
      expect(res.body.verification).toMatchObject({ verified: false, failure: expect.stringMatching(/\(refused\)/) });
      expect(mcp.listCalls).toBe(calls); // never reached
    } finally {
      await guarded.close();
    }
  });
});
