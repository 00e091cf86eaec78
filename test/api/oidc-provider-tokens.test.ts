import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { sql } from 'slonik';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { oidcProviderContextPatch } from '../../api/oidc/context-patch.ts';
import { encrypt } from '../../lib/crypto.ts';
import { loadKeyRing } from '../../db/oidc/keys/ring.ts';
import { tenantEvents } from '../helpers/events.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { codeFlow, createOidcClient, directoryUser, oidcEnvironment, relyingParty, startOidcApp, type OidcTestApp } from '../helpers/oidc.ts';

let t: OidcTestApp;
let env: Awaited<ReturnType<typeof oidcEnvironment>>;
let config: client.Configuration;
beforeAll(async () => {
  t = await startOidcApp();
  env = await oidcEnvironment(t);
  config = await relyingParty(env.issuer, env.clientId, env.clientSecret);
});
afterAll(() => t.close());

const signedIn = async (parameters: Record<string, string> = {}, options: Parameters<typeof codeFlow>[5] = {}) => {
  const user = await directoryUser(t, env.environmentId);
  return { user, ...(await codeFlow(t, config, env.environmentId, { accountId: user.id }, parameters, options)) };
};

const oauthError = async (promise: Promise<unknown>) => {
  const error = (await promise.then(
    () => null,
    (e: unknown) => e,
  )) as { error?: string; status?: number } | null;
  return error && { error: error.error, status: error.status };
};

describe('refresh tokens', () => {
  it('rotate on every use, and the reuse of a consumed one revokes the whole grant', async () => {
    const { tokens } = await signedIn();
    const first = tokens.refresh_token as string;
    const rotated = await client.refreshTokenGrant(config, first);
    expect(rotated.refresh_token).toEqual(expect.any(String));
    expect(rotated.refresh_token).not.toBe(first);
    expect(await oauthError(client.refreshTokenGrant(config, first))).toEqual({ error: 'invalid_grant', status: 400 });
    // The reuse ended the grant: the rotated token and the access tokens are dead too.
    expect(await oauthError(client.refreshTokenGrant(config, rotated.refresh_token as string))).toEqual({ error: 'invalid_grant', status: 400 });
    expect(await client.tokenIntrospection(config, rotated.access_token)).toEqual({ active: false });
  });

  it('are refused once the user is deactivated, and once the user is deleted', async () => {
    const a = await signedIn();
    await t.pool.query(sql.unsafe`UPDATE users SET active = false WHERE id = ${a.user.id}`);
    expect(await oauthError(client.refreshTokenGrant(config, a.tokens.refresh_token as string))).toEqual({ error: 'invalid_grant', status: 400 });
    const userinfo = await fetch(`${env.issuer}/me`, { headers: { authorization: `Bearer ${a.tokens.access_token}` } });
    expect(userinfo.status).toBe(401);
    const b = await signedIn();
    await t.pool.query(sql.unsafe`DELETE FROM users WHERE id = ${b.user.id}`);
    expect(await oauthError(client.refreshTokenGrant(config, b.tokens.refresh_token as string))).toEqual({ error: 'invalid_grant', status: 400 });
  });
});

describe('introspection and revocation', () => {
  it('introspects an access token as active with its subject and scope', async () => {
    const { tokens, user } = await signedIn();
    expect(await client.tokenIntrospection(config, tokens.access_token)).toMatchObject({
      active: true,
      sub: user.id,
      client_id: env.clientId,
      scope: 'openid profile email offline_access',
      iss: env.issuer,
    });
  });

  it('revokes a refresh token (its grant with it), with an oidc_token.revoked event', async () => {
    const { tokens, user } = await signedIn();
    await client.tokenRevocation(config, tokens.refresh_token as string);
    expect(await oauthError(client.refreshTokenGrant(config, tokens.refresh_token as string))).toEqual({ error: 'invalid_grant', status: 400 });
    expect(await client.tokenIntrospection(config, tokens.access_token)).toEqual({ active: false });
    const events = await tenantEvents(t, env.tenantId, { type: 'oidc_token.revoked' });
    expect(events.map((e) => e.data)).toContainEqual({
      environmentId: env.environmentId,
      clientId: env.clientId,
      tokenType: 'RefreshToken',
      grantId: expect.any(String),
      accountId: user.id,
    });
  });

  it("does not let a client revoke another client's token", async () => {
    const { tokens } = await signedIn();
    const other = await createOidcClient(t, env.environmentId);
    const stranger = await relyingParty(env.issuer, other.clientId, other.clientSecret);
    await client.tokenRevocation(stranger, tokens.access_token);
    expect(await client.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: true });
  });
});

describe('DPoP and PAR', () => {
  it('binds tokens to a DPoP key (cnf.jkt); userinfo refuses the token without its proof', async () => {
    const dpop = client.getDPoPHandle(config, await client.randomDPoPKeyPair());
    const { tokens, user } = await signedIn({}, { dpop });
    expect(tokens.token_type).toBe('dpop');
    expect(await client.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: expect.any(String) } });
    await expect(client.fetchUserInfo(config, tokens.access_token, user.id, { DPoP: dpop })).resolves.toMatchObject({ sub: user.id });
    const bare = await fetch(`${env.issuer}/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(bare.status).toBe(401);
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token as string, undefined, { DPoP: dpop });
    expect(refreshed.token_type).toBe('dpop');
  });

  it('accepts a pushed authorization request and completes the flow from its request_uri', async () => {
    const { tokens, user } = await signedIn({}, { par: true });
    expect(decodeJwt(tokens.id_token as string).sub).toBe(user.id);
  });
});

describe('resource indicators', () => {
  const resource = 'https://mcp.example.com/mcp';
  beforeAll(async () => {
    await t.pool.query(sql.unsafe`
      INSERT INTO trust_store_entries (environment_id, kind, subject, name, status, verified_at)
      VALUES (${env.environmentId}, 'mcp_server', ${resource}, 'MCP', 'verified', now()),
        (${env.environmentId}, 'mcp_server', 'https://suspended.example.com/mcp', 'Suspended', 'suspended', NULL),
        (${env.environmentId}, 'mcp_server', 'https://pending.example.com/mcp', 'Pending', 'pending', NULL)`);
  });

  it('issues a JWT access token whose audience is the MCP server (client credentials)', async () => {
    const tokens = await client.clientCredentialsGrant(config, { resource, scope: 'tools:read' });
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(`${env.issuer}/jwks`)), {
      issuer: env.issuer,
      audience: resource,
    });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(payload).toMatchObject({ client_id: env.clientId, scope: 'tools:read' });
  });

  it('issues a user token for the MCP server through the code flow', async () => {
    const { tokens, user } = await signedIn({ resource, scope: 'openid tools:read' }, { tokenParameters: { resource } });
    const { payload } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(`${env.issuer}/jwks`)), { issuer: env.issuer, audience: resource });
    expect(payload).toMatchObject({ sub: user.id, client_id: env.clientId });
  });

  it.each(['https://unknown.example.com/mcp', 'https://suspended.example.com/mcp', 'https://pending.example.com/mcp'])(
    'refuses %s with invalid_target',
    async (target) => {
      expect(await oauthError(client.clientCredentialsGrant(config, { resource: target }))).toEqual({ error: 'invalid_target', status: 400 });
    },
  );
});

// The load hook of api/oidc/context-patch.ts: the oidc-provider this process loaded gives requests their `ctx.oidc`
// through one accessor on the Koa context prototype (no accessor per request, which kept every request alive through
// young-generation collections), and the provider still works through it.
describe('oidc-provider as loaded (context patch)', () => {
  it('is applied to the loaded library: one shared accessor, undefined before the provider routes a request', async () => {
    const provider = await t.app.oidc.get(env.environmentId);
    // `unmatched`: an oidc-provider update changed the text the hook replaces (api/oidc/context-patch.ts).
    expect(oidcProviderContextPatch()).not.toBe('unmatched');
    const accessor = Object.getOwnPropertyDescriptor(provider.context, 'oidc');
    expect(accessor?.get).toBeTypeOf('function');
    expect((Object.create(provider.context) as { oidc?: unknown }).oidc).toBeUndefined();
  });

  it('serves requests through it: a token, its introspection, and an error answer', async () => {
    const basic = Buffer.from(`${env.clientId}:${env.clientSecret}`).toString('base64');
    const headers = { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' };
    const token = await fetch(`${env.issuer}/token`, { method: 'POST', headers, body: 'grant_type=client_credentials' });
    expect(token.status).toBe(200);
    const { access_token } = (await token.json()) as { access_token: string };
    const introspected = await fetch(`${env.issuer}/token/introspection`, { method: 'POST', headers, body: `token=${access_token}` });
    expect(await introspected.json()).toMatchObject({ active: true, client_id: env.clientId });
    const refused = await fetch(`${env.issuer}/token`, { method: 'POST', headers, body: 'grant_type=password' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'unsupported_grant_type' });
  });
});

// api/oidc/client-credentials-replay.ts: a client-credentials request the provider granted is answered again, byte for
// byte the same request, from that grant. Which requests went through the provider is counted by its `grant.success`
// events (a replayed answer emits none).
describe('client credentials answered again from a grant', () => {
  const resource = 'https://replay.example.com/mcp';
  const FORM = 'application/x-www-form-urlencoded';
  // Each test its own request (tests run in any order): the provider ignores a parameter it does not know.
  let body = '';
  beforeEach(() => void (body = `grant_type=client_credentials&resource=${encodeURIComponent(resource)}&scope=tools%3Aread&n=${crypto.randomUUID()}`));
  let e: { environmentId: string; issuer: string; clientId: string; clientSecret: string };
  beforeAll(async () => {
    const environmentId = (await newEnvironments(t)).environmentIds[0]!;
    // Writing the key ring and the client drops the environment's Provider (iam_oidc NOTIFY). Wait until the app has
    // seen those notifications, so the grants counted below are those of the Provider that stays: it has once it has
    // seen a marker sent after them (one listener gets a channel's notifications in commit order).
    await loadKeyRing(t.pool, t.masterKey, environmentId);
    const { clientId, clientSecret } = await createOidcClient(t, environmentId, { grantTypes: ['client_credentials'] });
    const marker = crypto.randomUUID();
    const evict = t.app.oidc.evict;
    const seen = new Promise<void>((resolve) => {
      t.app.oidc.evict = (id) => (id === marker ? resolve() : evict(id));
    });
    await t.pool.query(sql.unsafe`SELECT pg_notify('iam_oidc', ${marker})`);
    await seen;
    t.app.oidc.evict = evict;
    e = { environmentId, issuer: t.issuer(environmentId), clientId, clientSecret: clientSecret! };
    await t.pool.query(sql.unsafe`
      INSERT INTO trust_store_entries (environment_id, kind, subject, name, status, verified_at)
      VALUES (${environmentId}, 'mcp_server', ${resource}, 'MCP', 'verified', now())`);
  });
  const basicOf = (secret: string) => `Basic ${Buffer.from(`${e.clientId}:${secret}`).toString('base64')}`;
  const request = (form?: string, headers: Record<string, string> = {}) =>
    fetch(`${e.issuer}/token`, { method: 'POST', headers: { authorization: basicOf(e.clientSecret), 'content-type': FORM, ...headers }, body: form ?? body });
  const countGrants = async () => {
    const provider = await t.app.oidc.get(e.environmentId);
    let granted = 0;
    provider.on('grant.success', () => granted++);
    return { provider, granted: () => granted };
  };
  const jwks = () => createRemoteJWKSet(new URL(`${e.issuer}/jwks`));
  const comparable = (response: Response) => {
    const headers = Object.fromEntries([...response.headers].filter(([name]) => !['date', 'x-request-id', 'content-length'].includes(name)));
    return { status: response.status, headers };
  };

  it('answers as the provider did: same headers, same answer, a new token with the same claims', async () => {
    const { granted } = await countGrants();
    const first = await request();
    const again = await request();
    expect(comparable(again)).toEqual(comparable(first));
    expect(first.status).toBe(200);
    expect(granted()).toBe(1);
    const [a, b] = [(await first.json()) as Record<string, unknown>, (await again.json()) as Record<string, unknown>];
    expect(Object.keys(b)).toEqual(Object.keys(a));
    expect({ ...b, access_token: null }).toEqual({ ...a, access_token: null });
    expect(b).toMatchObject({ token_type: 'Bearer', scope: 'tools:read', expires_in: expect.any(Number) });
    const [x, y] = [
      await jwtVerify(a.access_token as string, jwks(), { issuer: e.issuer, audience: resource }),
      await jwtVerify(b.access_token as string, jwks(), { issuer: e.issuer, audience: resource }),
    ];
    expect(y.protectedHeader).toEqual(x.protectedHeader);
    const perToken = ({ jti, iat, exp, ...rest }: Record<string, unknown>) => ({ rest, lifetime: (exp as number) - (iat as number), jti });
    expect({ ...perToken(y.payload), jti: null }).toEqual({ ...perToken(x.payload), jti: null });
    expect(y.payload.jti).not.toBe(x.payload.jti);
    // Opaque tokens (no resource) are stored by the provider's model, as when it answers: the replayed one introspects.
    const opaqueBody = `grant_type=client_credentials&n=${crypto.randomUUID()}`;
    const opaque = async () => (await (await request(opaqueBody)).json()) as { access_token: string };
    await opaque();
    const replayed = await opaque();
    expect(granted()).toBe(2);
    const introspected = await fetch(`${e.issuer}/token/introspection`, {
      method: 'POST',
      headers: { authorization: basicOf(e.clientSecret), 'content-type': FORM },
      body: `token=${replayed.access_token}`,
    });
    expect(await introspected.json()).toMatchObject({ active: true, client_id: e.clientId });
  });

  it('sends to the provider what differs by a byte, a wrong secret, and requests with an Origin', async () => {
    const { granted } = await countGrants();
    expect((await request()).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const refused = await request(body, { authorization: basicOf('wrong') });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: 'invalid_client' });
    }
    expect((await request(`${body}&`)).status).toBe(200);
    expect((await request(`${body}&`)).status).toBe(200);
    expect(granted()).toBe(2);
    // A browser's request (CORS) for a confidential client is refused by the provider, granted request or not.
    const cors = await request(body, { origin: 'https://app.example.com' });
    expect(cors.status).toBe(400);
    expect(await cors.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('rechecks what can change under the same Provider: the secret expiring, the resource suspended', async () => {
    const { provider, granted } = await countGrants();
    await request();
    expect((await request()).status).toBe(200);
    const client = (await provider.Client.find(e.clientId)) as unknown as { clientSecretExpiresAt?: number };
    const expiresAt = client.clientSecretExpiresAt;
    client.clientSecretExpiresAt = Math.floor(Date.now() / 1000) - 60;
    const expired = await request();
    client.clientSecretExpiresAt = expiresAt;
    // The provider's own answer to an expired secret (its status is 400 there, not 401).
    expect(expired.status).toBe(400);
    expect(await expired.json()).toMatchObject({ error: 'invalid_client', error_description: expect.stringContaining('expired') });
    expect((await request()).status).toBe(200);
    const before = granted();
    await t.pool.query(sql.unsafe`UPDATE trust_store_entries SET status = 'suspended' WHERE environment_id = ${e.environmentId} AND subject = ${resource}`);
    await expect.poll(async () => (await request()).status, { timeout: 10_000 }).toBe(400);
    expect(await (await request()).json()).toMatchObject({ error: 'invalid_target' });
    // The same Provider all along: the refusal came from the recheck, not from a rebuilt provider.
    expect(await t.app.oidc.get(e.environmentId)).toBe(provider);
    expect(granted()).toBe(before);
    await t.pool.query(sql.unsafe`UPDATE trust_store_entries SET status = 'verified' WHERE environment_id = ${e.environmentId} AND subject = ${resource}`);
    await expect.poll(async () => (await request()).status, { timeout: 10_000 }).toBe(200);
  });

  it('forgets every grant when the client changes: a replaced secret is refused at once', async () => {
    expect((await request()).status).toBe(200);
    expect((await request()).status).toBe(200);
    const old = e.clientSecret;
    const replaced = `secret-${crypto.randomUUID()}`;
    await t.pool.query(sql.unsafe`UPDATE oidc_clients SET secret_encrypted = ${encrypt(t.masterKey, replaced)} WHERE client_id = ${e.clientId}`);
    await expect.poll(async () => (await request(body, { authorization: basicOf(old) })).status, { timeout: 10_000 }).toBe(401);
    expect((await request(body, { authorization: basicOf(replaced) })).status).toBe(200);
    e = { ...e, clientSecret: replaced };
  });
});
