import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import * as client from 'openid-client';
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { tenantEvents, auditEntries } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';
import { codeFlow, directoryUser, oidcEnvironment, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';

let t: OidcTestApp;
let token: string;
beforeAll(async () => {
  t = await startOidcApp();
  token = await t.token();
});
afterAll(() => t.close());

const keysPath = (env: { tenantId: string; environmentId: string }) => `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/oidc/signing-keys`;
const jwks = async (issuer: string) => createLocalJWKSet((await (await fetch(`${issuer}/jwks`)).json()) as JSONWebKeySet);

describe('OIDC signing keys', () => {
  it('lists the active ES256 and RS256 public keys', async () => {
    const env = await oidcEnvironment(t);
    const res = await t.app.inject({ method: 'GET', url: keysPath(env), headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    const { keys } = res.json() as { keys: { alg: string; status: string; publicJwk: Record<string, unknown>; retiresAt: string | null }[] };
    expect(keys.map((k) => [k.alg, k.status, k.retiresAt]).sort()).toEqual([
      ['ES256', 'active', null],
      ['RS256', 'active', null],
    ]);
    for (const key of keys) expect(key.publicJwk.d).toBeUndefined();
  });

  it('rotate: new tokens are signed by the new key; a token signed before still verifies against the JWKS', async () => {
    const env = await oidcEnvironment(t);
    const config = await relyingParty(env.issuer, env.clientId, env.clientSecret);
    const user = await directoryUser(t, env.environmentId);
    const before = (await codeFlow(t, config, env.environmentId, { accountId: user.id })).tokens.id_token as string;
    const oldKid = decodeProtectedHeader(before).kid;

    const res = await t.app.inject({ method: 'POST', url: `${keysPath(env)}/rotate`, headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    const { keys } = res.json() as { keys: { kid: string; alg: string; status: string; retiresAt: string | null }[] };
    expect(
      keys
        .filter((k) => k.status === 'active')
        .map((k) => k.alg)
        .sort(),
    ).toEqual(['ES256', 'RS256']);
    const retiring = keys.find((k) => k.kid === oldKid);
    expect(retiring?.status).toBe('retiring');
    // The longest signed-token lifetime (1 h by default) plus 5 min of skew.
    expect(Date.parse(retiring?.retiresAt as string) - Date.now()).toBeGreaterThan(3600_000);

    // The rotating request answered once its NOTIFY was handled: the next flow signs with the new key.
    const after = (await codeFlow(t, config, env.environmentId, { accountId: user.id })).tokens.id_token as string;
    const newKid = decodeProtectedHeader(after).kid;
    expect(newKid).not.toBe(oldKid);
    expect(keys.find((k) => k.kid === newKid)?.status).toBe('active');
    const set = await jwks(env.issuer);
    await expect(jwtVerify(before, set, { issuer: env.issuer })).resolves.toBeDefined();
    await expect(jwtVerify(after, set, { issuer: env.issuer })).resolves.toBeDefined();

    const events = await tenantEvents(t, env.tenantId, { type: 'oidc_signing_key.rotated' });
    expect(events.map((e) => e.data)).toContainEqual({
      environmentId: env.environmentId,
      kids: keys.filter((k) => k.status === 'active').map((k) => k.kid),
      retiresAt: retiring?.retiresAt,
    });
    const audit = await auditEntries(t, { tenantId: env.tenantId }, { action: 'oidc_signing_key.rotate' });
    expect(audit.map((a) => a.resource)).toContainEqual({ type: 'environment', id: env.environmentId });
  });

  it('a rotation that finds retiring keys past their date retires them with an audit entry and an oidc_signing_key.retired event each', async () => {
    const env = await oidcEnvironment(t);
    const rotate = async () => {
      const res = await t.app.inject({ method: 'POST', url: `${keysPath(env)}/rotate`, headers: bearer(token) });
      expect(res.statusCode).toBe(200);
      return (res.json() as { keys: { kid: string; alg: string; status: string; retiresAt: string | null }[] }).keys;
    };
    const retiring = (await rotate()).filter((k) => k.status === 'retiring');
    expect(retiring).toHaveLength(2);
    // Their tokens have all expired: the retirement time has passed, and the clean-up process has not come by yet.
    await t.pool.query(sql.unsafe`
      UPDATE oidc_signing_keys SET retires_at = now() - interval '1 minute' WHERE environment_id = ${env.environmentId} AND status = 'retiring'`);
    const after = await rotate();
    for (const key of retiring) expect(after.find((k) => k.kid === key.kid)).toBeUndefined();
    const Row = z.object({ id: z.string(), kid: z.string(), status: z.string() });
    const rows = await t.pool.any(sql.type(Row)`
      SELECT id, kid, status FROM oidc_signing_keys WHERE environment_id = ${env.environmentId} AND kid = ANY(${sql.array(
        retiring.map((k) => k.kid),
        'text',
      )})`);
    expect(rows.map((r) => r.status)).toEqual(['retired', 'retired']);

    const events = await tenantEvents(t, env.tenantId, { type: 'oidc_signing_key.retired' });
    // Recorded as the rotating caller's doing (the clean-up process records its own as the system).
    expect(events.filter((e) => e.environmentId === env.environmentId)).toEqual(
      rows.map(() => expect.objectContaining({ actor: expect.objectContaining({ type: 'service_account' }) })),
    );
    for (const row of rows) {
      const key = retiring.find((k) => k.kid === row.kid)!;
      expect(events.map((e) => e.data)).toContainEqual({
        key: { id: row.id, kid: row.kid, alg: key.alg, status: 'retired', retiresAt: null },
        retiredAfter: expect.any(String),
      });
    }
    const audit = await auditEntries(t, { tenantId: env.tenantId }, { action: 'oidc_signing_key.retire' });
    expect(audit.map((a) => [a.resource, a.changes])).toEqual(
      expect.arrayContaining(
        rows.map((r) => [
          { type: 'oidc_signing_key', id: r.id },
          { before: { status: 'retiring', retiresAt: expect.any(String) }, after: { status: 'retired', retiresAt: null } },
        ]),
      ),
    );
  });

  it('rotating needs environment-settings:write, and another organization gets 404', async () => {
    const env = await oidcEnvironment(t);
    const reader = await t.token('environment-settings:read');
    expect((await t.app.inject({ method: 'GET', url: keysPath(env), headers: bearer(reader) })).statusCode).toBe(200);
    const refused = await t.app.inject({ method: 'POST', url: `${keysPath(env)}/rotate`, headers: bearer(reader) });
    expect(refused.statusCode).toBe(403);
    const other = await otherOrganization(t);
    for (const [method, url] of [
      ['GET', keysPath(env)],
      ['POST', `${keysPath(env)}/rotate`],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: bearer(other.token) });
      expect(res.statusCode).toBe(404);
    }
  });

  it('keeps client credentials working across a rotation', async () => {
    const env = await oidcEnvironment(t);
    const config = await relyingParty(env.issuer, env.clientId, env.clientSecret);
    await t.app.inject({ method: 'POST', url: `${keysPath(env)}/rotate`, headers: bearer(token) });
    await expect(client.clientCredentialsGrant(config)).resolves.toMatchObject({ token_type: 'bearer' });
  });
});
