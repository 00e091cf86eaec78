// The back-channel-logout process on both engines: revoking a directory session starts, in its transaction, one
// process per client with a back-channel logout URI. The revocation answers without waiting on the RPs (and with no
// engine running at all: the outbox keeps the start); each RP gets a logout token that verifies against the
// environment's JWKS; an RP that fails is tried again, across a restart too; a refusal, or failures through the whole
// schedule, give up with session.back_channel_logout_failed.
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { sql } from 'slonik';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
import { codeFlow, createOidcClient, directoryUser, oidcEnvironment, relyingParty } from '../helpers/oidc.ts';
import { startOidcAppWithProcesses } from '../helpers/oidc-processes.ts';
import { ENGINES, type TestAppWithProcesses } from '../helpers/processes.ts';
import type { OidcTestApp } from '../helpers/oidc.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

const POLL = { timeout: 20_000, interval: 100 };
const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

describe.each(ENGINES)('back-channel-logout process (%s)', (engine) => {
  let t: OidcTestApp & TestAppWithProcesses;
  let receiver: Receiver;
  let token: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    // A wait long enough between attempts for a restart to fall into it.
    t = await startOidcAppWithProcesses(engine, { BACK_CHANNEL_LOGOUT_SCHEDULE: '0,1s,1s' });
    token = await t.token();
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  /** A user signed in to the clients (one browser), each logging out at its own path of the receiver. */
  async function signedIn(clients: number) {
    const paths = Array.from({ length: clients }, () => `/logout/${engine}-${crypto.randomUUID()}`);
    const env = await oidcEnvironment(t, { backchannelLogoutUri: `${receiver.url}${paths[0]}` });
    const clientIds = [env.clientId];
    const secrets = [env.clientSecret];
    for (const path of paths.slice(1)) {
      const created = await createOidcClient(t, env.environmentId, { backchannelLogoutUri: `${receiver.url}${path}` });
      clientIds.push(created.clientId);
      secrets.push(created.clientSecret);
    }
    const user = await directoryUser(t, env.environmentId);
    const idTokens: string[] = [];
    let jar;
    for (const [i, clientId] of clientIds.entries()) {
      const flow = await codeFlow(t, await relyingParty(env.issuer, clientId, secrets[i]!), env.environmentId, { accountId: user.id }, {}, jar ? { jar } : {});
      jar = flow.jar;
      idTokens.push(flow.tokens.id_token as string);
    }
    const url = `/v1/tenants/${env.tenantId}/environments/${env.environmentId}/directory/users/${user.id}/sessions`;
    const [session] = (await t.app.inject({ method: 'GET', url, headers: bearer(token) })).json().sessions;
    const revoke = () => t.app.inject({ method: 'DELETE', url: `${url}/${session.id}`, headers: bearer(token) });
    const processId = (i: number) => `back-channel-logout:${session.id}:${clientIds[i]}`;
    return { env, user, paths, clientIds, idTokens, sessionId: session.id as string, revoke, processId };
  }

  const posts = (path: string) => receiver.received.filter((r) => r.path === path);
  const logoutToken = (path: string, i = -1) => new URLSearchParams(posts(path).at(i)!.body).get('logout_token')!;
  const failures = (tenantId: string, environmentId: string) =>
    tenantEvents(t, tenantId, { type: 'session.back_channel_logout_failed', environmentId }).then((events) => events.map((e) => e.data));

  it('the revocation answers without waiting on the RP, even with no engine running; the start waits in the outbox', async () => {
    const s = await signedIn(1);
    await t.processes.stop();
    try {
      const res = await s.revoke();
      expect(res.statusCode).toBe(200);
      expect(res.json().sessions).toEqual([expect.objectContaining({ id: s.sessionId, active: false })]);
      expect(posts(s.paths[0]!)).toEqual([]);
      expect(await t.pool.anyFirst(sql.unsafe`SELECT process_id FROM process_outbox WHERE process_id = ${s.processId(0)}`)).toEqual([s.processId(0)]);
    } finally {
      await t.restartProcesses();
    }

    // The token: signed with the environment's key (the client's ID token alg), for the client, the user and the session.
    await expect.poll(() => posts(s.paths[0]!).length, POLL).toBe(1);
    expect(posts(s.paths[0]!)[0]!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const jwt = logoutToken(s.paths[0]!);
    const { payload, protectedHeader } = await jwtVerify(jwt, createRemoteJWKSet(new URL(`${s.env.issuer}/jwks`)), {
      issuer: s.env.issuer,
      audience: s.env.clientId,
      typ: 'logout+jwt',
      algorithms: ['ES256'],
    });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'logout+jwt', kid: expect.any(String) });
    expect(payload).toEqual({
      iss: s.env.issuer,
      aud: s.env.clientId,
      sub: s.user.id,
      sid: decodeJwt(s.idTokens[0]!).sid,
      events: { [EVENT]: {} },
      jti: expect.any(String),
      iat: expect.any(Number),
      exp: payload.iat! + 120,
    });
    expect(payload).not.toHaveProperty('nonce');
    await expect.poll(() => t.processStatus(s.processId(0)), POLL).toBe('completed');
    expect(await failures(s.env.tenantId, s.env.environmentId)).toEqual([]);
  });

  it('an RP that fails at first gets a new logout token at the next attempt', async () => {
    const s = await signedIn(1);
    receiver.script(s.paths[0]!, 503);
    expect((await s.revoke()).statusCode).toBe(200);
    await expect.poll(() => posts(s.paths[0]!).length, POLL).toBe(2);
    const [first, second] = [decodeJwt(logoutToken(s.paths[0]!, 0)), decodeJwt(logoutToken(s.paths[0]!, 1))];
    expect(second.jti).not.toBe(first.jti);
    await jwtVerify(logoutToken(s.paths[0]!, 1), createRemoteJWKSet(new URL(`${s.env.issuer}/jwks`)), { issuer: s.env.issuer, audience: s.env.clientId });
    await expect.poll(() => t.processStatus(s.processId(0)), POLL).toBe('completed');
    expect(posts(s.paths[0]!)).toHaveLength(2);
    expect(await failures(s.env.tenantId, s.env.environmentId)).toEqual([]);
  });

  it('a restart while the process waits for its next attempt loses nothing: the RP is logged out once more, not twice', async () => {
    const s = await signedIn(1);
    receiver.script(s.paths[0]!, 500);
    expect((await s.revoke()).statusCode).toBe(200);
    await expect.poll(() => posts(s.paths[0]!).length, POLL).toBe(1);
    await t.restartProcesses();
    await expect.poll(() => posts(s.paths[0]!).length, POLL).toBe(2);
    await expect.poll(() => t.processStatus(s.processId(0)), POLL).toBe('completed');
    expect(posts(s.paths[0]!)).toHaveLength(2);
    expect(await failures(s.env.tenantId, s.env.environmentId)).toEqual([]);
  });

  it('gives up on a refusal at once, and after the last attempt on an RP that stays down: session.back_channel_logout_failed', async () => {
    const s = await signedIn(2);
    const [refusing, down] = s.paths as [string, string];
    receiver.script(refusing, 400);
    receiver.script(down, 503, 503, 503);
    expect((await s.revoke()).statusCode).toBe(200);
    await expect.poll(() => t.processStatus(s.processId(0)), POLL).toBe('completed');
    await expect.poll(() => t.processStatus(s.processId(1)), POLL).toBe('completed');
    expect(posts(refusing)).toHaveLength(1);
    expect(posts(down)).toHaveLength(3);
    expect(decodeProtectedHeader(logoutToken(down)).typ).toBe('logout+jwt');
    const failed = await failures(s.env.tenantId, s.env.environmentId);
    expect(failed).toHaveLength(2);
    expect(failed).toEqual(
      expect.arrayContaining([
        { sessionId: s.sessionId, userId: s.user.id, clientId: s.clientIds[0], attempts: 1, statusCode: 400, error: 'answered 400' },
        { sessionId: s.sessionId, userId: s.user.id, clientId: s.clientIds[1], attempts: 3, statusCode: 503, error: 'answered 503' },
      ]),
    );
  });
});
