// Public keys of trust-store entries: only public EC P-256, Ed25519 and RSA ≥ 2048 keys, kid defaulting to the
// RFC 7638 thumbprint and unique per entry, rotation (the previous key retiring for the grace period) and revocation.
import { generateKeyPairSync } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { keyPair, trustStoreEnvironment } from '../helpers/trust-store.ts';

let t: TestApp;
let env: Awaited<ReturnType<typeof trustStoreEnvironment>>;

beforeAll(async () => {
  t = await startTestApp({ TRUST_STORE_KEY_ROTATION_GRACE: '2h' });
  env = await trustStoreEnvironment(t);
});
afterAll(() => t.close());

const newEntry = (subject: string) => env.create({ kind: 'workload', subject });

describe('trust-store keys', () => {
  it('adds public keys of every kind it accepts, kid defaulting to the RFC 7638 thumbprint', async () => {
    const entry = await newEntry('keys-kinds');
    for (const alg of ['ES256', 'EdDSA', 'RS256'] as const) {
      const { jwk } = await keyPair(alg);
      const res = await env.call('POST', `/${entry.id}/keys`, { jwk });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const kid = await calculateJwkThumbprint(jwk as never);
      expect(res.body.key).toEqual({
        id: expect.any(String),
        entryId: entry.id,
        kid,
        alg,
        jwk: { ...jwk, kid, alg, use: 'sig' },
        status: 'active',
        retiresAt: null,
        revokedAt: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
    }
    const listed = await env.call('GET', `/${entry.id}/keys?limit=2`);
    expect(listed.body).toMatchObject({ total: 3, hasMore: true });
    const events = await tenantEvents(t, env.tenantId, { type: 'mcp.trust_store.key.added' });
    expect(events.filter((e) => e.data.entryId === entry.id)).toHaveLength(3);
  });

  it('refuses private members, other key types, small RSA keys and inconsistent algs, naming the member', async () => {
    const entry = await newEntry('keys-refused');
    const { jwk, privateJwk } = await keyPair('ES256');
    const refused = async (body: Record<string, unknown>, path: string) => {
      const res = await env.call('POST', `/${entry.id}/keys`, body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toMatchObject({ code: 'trust_store.invalid_key', details: [{ path }] });
      return res.body;
    };
    expect((await refused({ jwk: privateJwk }, 'body.jwk.d')).details[0].message).toMatch(/private/);
    await refused({ jwk: { ...jwk, p: 'AQAB' } }, 'body.jwk.p');
    await refused({ jwk: { kty: 'oct', k: 'c2VjcmV0' } }, 'body.jwk.k');
    await refused({ jwk: { ...jwk, crv: 'P-384' } }, 'body.jwk.crv');
    await refused({ jwk: { ...jwk, x: 'short' } }, 'body.jwk.x');
    await refused({ jwk: { kty: 'dsa' } }, 'body.jwk.kty');
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' });
    await refused({ jwk: small }, 'body.jwk.n');
    await refused({ jwk: { ...jwk, alg: 'RS256' } }, 'body.jwk.alg');
    await refused({ jwk, alg: 'EdDSA' }, 'body.jwk');
    expect((await env.call('POST', `/${entry.id}/keys`, { jwk, extra: 1 })).status).toBe(400);
  });

  it('refuses keys that are not keys: weak RSA exponents and moduli, points off the curve, other curves, short OKP keys', async () => {
    const entry = await newEntry('keys-not-keys');
    const refused = async (jwk: Record<string, unknown>, path: string, message: RegExp) => {
      for (const [url, extra] of [
        [`/${entry.id}/keys`, {}],
        [`/${entry.id}/keys/rotate`, { gracePeriodSeconds: 0 }],
      ] as const) {
        const res = await env.call('POST', url, { jwk, ...extra });
        expect(res.status, JSON.stringify(res.body)).toBe(400);
        expect(res.body).toMatchObject({ code: 'trust_store.invalid_key', details: [{ path, message: expect.stringMatching(message) }] });
      }
    };
    const rsa = (await keyPair('RS256')).jwk;
    await refused({ ...rsa, e: 'AQ' }, 'body.jwk.e', /65537/);
    await refused({ ...rsa, e: 'Aw' }, 'body.jwk.e', /65537/);
    await refused({ ...rsa, e: 'AAEAAQE' }, 'body.jwk.e', /65537/);
    await refused(generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'jwk' }), 'body.jwk.n', /2048 bits/);
    const even = Buffer.from(rsa.n as string, 'base64url');
    even[even.length - 1]! &= 0xfe;
    await refused({ ...rsa, n: even.toString('base64url') }, 'body.jwk.n', /odd/);

    const ec = (await keyPair('ES256')).jwk;
    const y = Buffer.from(ec.y as string, 'base64url');
    y[31]! ^= 1;
    await refused({ ...ec, y: y.toString('base64url') }, 'body.jwk', /not a point on the curve P-256/);
    await refused({ ...ec, x: Buffer.alloc(32).toString('base64url'), y: Buffer.alloc(32).toString('base64url') }, 'body.jwk', /not a point on the curve/);
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ format: 'jwk' });
    await refused(p384, 'body.jwk.crv', /P-256/);
    await refused({ ...ec, crv: 'secp256k1' }, 'body.jwk.crv', /P-256/);

    const ed = (await keyPair('EdDSA')).jwk;
    await refused({ ...ed, x: Buffer.alloc(31, 1).toString('base64url') }, 'body.jwk.x', /32 bytes/);
    await refused({ ...ed, x: Buffer.alloc(33, 1).toString('base64url') }, 'body.jwk.x', /32 bytes/);
    await refused({ ...ed, crv: 'X25519' }, 'body.jwk.crv', /Ed25519/);
    expect((await env.call('GET', `/${entry.id}/keys`)).body.keys).toEqual([]);
  });

  it('refuses a second key with the same kid on an entry, also concurrently', async () => {
    const entry = await newEntry('keys-kid');
    const { jwk } = await keyPair();
    const answers = await Promise.all([1, 2].map(() => env.call('POST', `/${entry.id}/keys`, { jwk: { ...jwk, kid: 'k1' } })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    expect(answers.find((a) => a.status === 409)!.body.code).toBe('trust_store.kid_taken');
    const other = await newEntry('keys-kid-other');
    expect((await env.call('POST', `/${other.id}/keys`, { jwk: { ...jwk, kid: 'k1' } })).status).toBe(201);
  });

  it('rotates: the new key is active, the previous one retiring for the configured grace, or given seconds', async () => {
    const entry = await newEntry('keys-rotate');
    const first = (await env.call('POST', `/${entry.id}/keys`, { jwk: (await keyPair()).jwk })).body.key;
    const rotated = await env.call('POST', `/${entry.id}/keys/rotate`, { jwk: (await keyPair('EdDSA')).jwk });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(201);
    expect(rotated.body.key).toMatchObject({ status: 'active', alg: 'EdDSA' });
    expect(rotated.body.retiring).toEqual([{ ...first, status: 'retiring', retiresAt: expect.any(String), updatedAt: expect.any(String) }]);
    const grace = (Date.parse(rotated.body.retiring[0].retiresAt) - Date.now()) / 1000;
    expect(grace).toBeGreaterThan(7200 - 60);
    expect(grace).toBeLessThanOrEqual(7200);

    const again = await env.call('POST', `/${entry.id}/keys/rotate`, { jwk: (await keyPair('RS256')).jwk, gracePeriodSeconds: 60 });
    expect(again.body.retiring.map((k: { id: string }) => k.id)).toEqual([rotated.body.key.id]);
    const now = await env.call('POST', `/${entry.id}/keys/rotate`, { jwk: (await keyPair()).jwk, gracePeriodSeconds: 0 });
    expect(now.body.retiring).toEqual([expect.objectContaining({ id: again.body.key.id, status: 'retired', retiresAt: null })]);
    const statuses = (await env.call('GET', `/${entry.id}`)).body.entry.keys.map((k: { status: string }) => k.status);
    expect(statuses).toEqual(['retiring', 'retiring', 'retired', 'active']);

    const events = (await tenantEvents(t, env.tenantId, { type: 'mcp.trust_store.key.rotated' })).filter((e) => e.data.entryId === entry.id);
    expect(events.map((e) => e.data.key)).toEqual([rotated.body.key, again.body.key, now.body.key]);
    const audit = await auditEntries(t, { tenantId: env.tenantId }, { action: 'mcp.trust_store.key.rotate' });
    expect(audit.filter((a) => a.resource.id === now.body.key.id)).toHaveLength(1);
  });

  it('revokes a key at once; revoking again changes nothing; another entry’s key is 404', async () => {
    const entry = await newEntry('keys-revoke');
    const key = (await env.call('POST', `/${entry.id}/keys`, { jwk: (await keyPair()).jwk })).body.key;
    const revoked = await env.call('POST', `/${entry.id}/keys/${key.id}/revoke`);
    expect(revoked.body.key).toMatchObject({ status: 'revoked', revokedAt: expect.any(String) });
    expect((await env.call('POST', `/${entry.id}/keys/${key.id}/revoke`)).body.key).toEqual(revoked.body.key);
    expect((await env.call('GET', `/${entry.id}/keys/${key.id}`)).body.key).toEqual(revoked.body.key);
    const other = await newEntry('keys-revoke-other');
    expect((await env.call('POST', `/${other.id}/keys/${key.id}/revoke`)).status).toBe(404);
    const events = await tenantEvents(t, env.tenantId, { type: 'mcp.trust_store.key.revoked' });
    expect(events.filter((e) => e.data.entryId === entry.id)).toHaveLength(1);
  });
});
