// Administrators' view of a user's second factors: GET …/directory/users/:userId/mfa-factors and the reset, DELETE
// …/mfa-factors/:factorId (the factor and, for an enrolled one, the recovery codes).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMfaService, type MfaEnv, type MfaService } from '../../api/mfa/index.ts';
import { hashRecoveryCode } from '../../lib/mfa/recovery-codes.ts';
import { totpCode, totpStep } from '../../lib/mfa/totp.ts';
import { createRecoveryCodeQueries } from '../../db/mfa/recovery-codes.ts';
import { createTotpFactorQueries } from '../../db/mfa/totp-factors.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments, otherOrganization } from '../helpers/fixtures.ts';
import { userPrincipal } from '../helpers/users.ts';

let t: TestApp;
let token: string;
let tenantId: string;
let environmentId: string;
let users: string;
let mfa: MfaService;
let env: MfaEnv;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.token();
  tenantId = t.credentials.tenantId;
  mfa = createMfaService(t.pool, t.masterKey);
});
beforeEach(async () => {
  environmentId = (await newEnvironments(t, token)).environmentIds[0]!;
  users = `/v1/tenants/${tenantId}/environments/${environmentId}/directory/users`;
  env = { tenantId, environmentId };
});
afterAll(() => t.close());

type Method = 'GET' | 'DELETE';
const call = (method: Method, url: string, auth = token) => t.app.inject({ method, url, headers: bearer(auth) });
const newUser = async () => {
  const res = await t.app.inject({ method: 'POST', url: users, headers: bearer(token), payload: { userName: `user-${crypto.randomUUID().slice(0, 8)}` } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().user.id as string;
};
const enrol = async (userId: string) => {
  const started = await mfa.startTotpEnrolment(env, userId);
  const confirmed = await mfa.confirmTotpEnrolment(env, userId, started.factorId, totpCode(started.secret, Date.now()));
  if (!confirmed.ok) throw new Error(confirmed.reason);
  return { ...started, recoveryCodes: confirmed.recoveryCodes };
};
const eventsOf = async (type: string) => (await tenantEvents(t, tenantId, { environmentId })).filter((e) => e.type === type);
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('GET …/directory/users/:userId/mfa-factors', () => {
  it('shows no factor, then an enrolment in progress, then the enrolled factor with its last use and the codes left, never the secret', async () => {
    const userId = await newUser();
    const url = `${users}/${userId}/mfa-factors`;
    expect((await call('GET', url)).json()).toEqual({ factors: [], recoveryCodesLeft: 0 });

    const started = await mfa.startTotpEnrolment(env, userId);
    const pending = await call('GET', url, await t.token('directory:read'));
    expect(pending.statusCode).toBe(200);
    expect(pending.json()).toEqual({
      factors: [{ id: started.factorId, type: 'totp', confirmed: false, createdAt: expect.stringMatching(TIME), confirmedAt: null, lastUsedAt: null }],
      recoveryCodesLeft: 0,
    });

    const confirmed = await mfa.confirmTotpEnrolment(env, userId, started.factorId, totpCode(started.secret, Date.now()));
    if (!confirmed.ok) throw new Error(confirmed.reason);
    expect(await mfa.verifyTotp(env, userId, totpCode(started.secret, Date.now() + 30_000))).toEqual({ ok: true });
    expect((await mfa.useRecoveryCode(env, userId, confirmed.recoveryCodes[0]!)).ok).toBe(true);
    const res = await call('GET', url);
    expect(res.json()).toEqual({
      factors: [
        {
          id: started.factorId,
          type: 'totp',
          confirmed: true,
          createdAt: expect.stringMatching(TIME),
          confirmedAt: expect.stringMatching(TIME),
          lastUsedAt: expect.stringMatching(TIME),
        },
      ],
      recoveryCodesLeft: 9,
    });
    expect(res.body).not.toContain(started.secret);
  });

  it('answers 404 for an unknown user, 400 naming a malformed id, and 403 without the directory scope', async () => {
    const unknown = await call('GET', `${users}/${crypto.randomUUID()}/mfa-factors`);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'user.not_found' });
    const malformed = await call('GET', `${users}/not-a-uuid/mfa-factors`);
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().details).toEqual([{ path: 'params.userId', message: expect.any(String) }]);
    const userId = await newUser();
    expect((await call('GET', `${users}/${userId}/mfa-factors`, await t.token('environment-settings:read'))).statusCode).toBe(403);
  });

  it('answers 404 to another organization, even holding `*`', async () => {
    const userId = await newUser();
    const { factorId } = await enrol(userId);
    const other = (await otherOrganization(t)).token;
    for (const [method, url] of [
      ['GET', `${users}/${userId}/mfa-factors`],
      ['DELETE', `${users}/${userId}/mfa-factors/${factorId}`],
    ] as const) {
      const res = await call(method, url, other);
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('tenant.not_found');
    }
    expect((await call('GET', `${users}/${userId}/mfa-factors`)).json().factors).toHaveLength(1);
  });
});

describe('DELETE …/directory/users/:userId/mfa-factors/:factorId', () => {
  it('resets an enrolled user: the factor and the recovery codes are gone, the user enrols again; audited and evented', async () => {
    const userId = await newUser();
    const { factorId, secret, recoveryCodes } = await enrol(userId);
    const res = await call('DELETE', `${users}/${userId}/mfa-factors/${factorId}`, await t.token('directory:write'));
    expect(res.statusCode, res.body).toBe(204);
    expect(res.body).toBe('');
    expect((await call('GET', `${users}/${userId}/mfa-factors`)).json()).toEqual({ factors: [], recoveryCodesLeft: 0 });
    expect(await mfa.verifyTotp(env, userId, totpCode(secret, Date.now() + 30_000))).toEqual({ ok: false, reason: 'not_enrolled' });
    expect(await mfa.useRecoveryCode(env, userId, recoveryCodes[1]!)).toEqual({ ok: false, reason: 'not_enrolled' });
    expect((await mfa.startTotpEnrolment(env, userId)).factorId).not.toBe(factorId);

    const [removed] = await eventsOf('user.mfa_removed');
    expect(removed).toMatchObject({
      actor: { type: 'service_account' },
      subject: { type: 'user', id: userId },
      data: { userId, factor: 'totp', factorId, confirmed: true, recoveryCodesRemoved: 10 },
    });
    const [audit] = await auditEntries(t, { tenantId }, { action: 'user.mfa_removed', resourceId: userId });
    expect(audit).toMatchObject({ environmentId, resource: { type: 'user', id: userId }, changes: { before: { id: factorId, confirmed: true } } });

    const again = await call('DELETE', `${users}/${userId}/mfa-factors/${factorId}`);
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ error: `No mfa factor with id ${factorId}.`, code: 'mfa_factor.not_found', requestId: expect.any(String) });
  });

  it('removes an enrolment in progress and keeps the recovery codes of no factor; 404 for another user’s factor', async () => {
    const [a, b] = [await newUser(), await newUser()];
    const started = await mfa.startTotpEnrolment(env, a);
    expect((await call('DELETE', `${users}/${b}/mfa-factors/${started.factorId}`)).statusCode).toBe(404);
    expect((await call('DELETE', `${users}/${a}/mfa-factors/${started.factorId}`)).statusCode).toBe(204);
    expect((await eventsOf('user.mfa_removed')).map((e) => e.data)).toEqual([
      { userId: a, factor: 'totp', factorId: started.factorId, confirmed: false, recoveryCodesRemoved: 0 },
    ]);
    expect(await mfa.confirmTotpEnrolment(env, a, started.factorId, totpCode(started.secret, Date.now()))).toEqual({ ok: false, reason: 'not_enrolled' });
  });

  it('refuses (403) to reset an operator of the service for a caller without its scopes, and needs directory:write', async () => {
    const operator = await userPrincipal(t);
    const opEnv = { tenantId, environmentId: t.credentials.environmentId };
    const started = await mfa.startTotpEnrolment(opEnv, operator.user.id);
    const url = `/v1/tenants/${tenantId}/environments/${t.credentials.environmentId}/directory/users/${operator.user.id}/mfa-factors/${started.factorId}`;
    const refused = await call('DELETE', url, await t.token('directory:write'));
    expect(refused.statusCode, refused.body).toBe(403);
    expect(refused.json().code).toBe('directory.user_protected');
    expect((await call('DELETE', url, await t.token('directory:read'))).statusCode).toBe(403);
    expect((await call('DELETE', url)).statusCode).toBe(204);
  });
});

describe('MFA queries bound to their environment', () => {
  it('a factor and the recovery codes of one environment are neither read, used nor deleted through another', async () => {
    const userId = await newUser();
    const { factorId, recoveryCodes } = await enrol(userId);
    const theirs = (await newEnvironments(t, token)).environmentIds[0]!;
    const factors = createTotpFactorQueries(t.pool, theirs);
    const codes = createRecoveryCodeQueries(t.pool, theirs);
    expect(await factors.factorsOf(userId)).toEqual([]);
    expect(await factors.confirmedOf(userId)).toBeNull();
    expect(await factors.useStep(factorId, totpStep(Date.now()) + 5)).toBe(false);
    expect(await factors.remove(userId, factorId)).toBeNull();
    expect(await codes.use(userId, hashRecoveryCode(recoveryCodes[0]!))).toBe(false);
    expect(await codes.remaining(userId)).toBe(0);
    expect(await codes.removeAll(userId)).toBe(0);
    expect((await call('GET', `${users}/${userId}/mfa-factors`)).json()).toMatchObject({
      factors: [{ id: factorId, confirmed: true, lastUsedAt: null }],
      recoveryCodesLeft: 10,
    });
  });
});
