// The MFA services the sign-in pages call (api/mfa): TOTP enrolment → verification → replay refused, recovery codes
// used once, the requirement by policy and role, and "remember this device"; each outcome audited and evented.
import { createHash } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMfaService, type MfaEnv, type MfaService } from '../../api/mfa/index.ts';
import { decrypt } from '../../lib/crypto.ts';
import { rememberDeviceKey, signRememberDevice } from '../../lib/mfa/remember-device.ts';
import { totpCode } from '../../lib/mfa/totp.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { elevateEnvironment } from '../helpers/elevate.ts';
import { rbacEnvironment, type RbacEnvironment } from '../helpers/rbac.ts';

let t: TestApp;
let mfa: MfaService;
let e: RbacEnvironment;
let env: MfaEnv;
let tenantId: string;
beforeAll(async () => {
  t = await startTestApp();
  tenantId = t.credentials.tenantId;
  mfa = createMfaService(t.pool, t.masterKey);
});
beforeEach(async () => {
  e = await rbacEnvironment(t, await t.token());
  env = { tenantId, environmentId: e.environmentId, origin: { ip: '203.0.113.9', userAgent: 'vitest', requestId: 'req-1' } };
});
afterAll(() => t.close());

const eventsOf = async (type: string) => (await tenantEvents(t, tenantId, { environmentId: e.environmentId })).filter((ev) => ev.type === type);
const userName = (userId: string) => t.pool.oneFirst(sql.type(z.object({ n: z.string() }))`SELECT user_name AS n FROM users WHERE id = ${userId}`);
const storedSecret = (factorId: string) =>
  t.pool.oneFirst(sql.type(z.object({ s: z.string() }))`SELECT secret_encrypted AS s FROM user_totp_factors WHERE id = ${factorId}`);
const storedCodeHashes = (userId: string) =>
  t.pool.anyFirst(sql.type(z.object({ h: z.string() }))`SELECT encode(code_hash, 'hex') AS h FROM user_recovery_codes WHERE user_id = ${userId}`);

/** A user with a confirmed TOTP factor: its secret and recovery codes. */
const enrolled = async () => {
  const userId = await e.newUser();
  const started = await mfa.startTotpEnrolment(env, userId);
  const confirmed = await mfa.confirmTotpEnrolment(env, userId, started.factorId, totpCode(started.secret, Date.now()));
  if (!confirmed.ok) throw new Error(`confirm: ${confirmed.reason}`);
  return { userId, secret: started.secret, factorId: started.factorId, recoveryCodes: confirmed.recoveryCodes };
};

describe('TOTP enrolment', () => {
  it('starts with a sealed secret, its otpauth URI and QR code; a code confirms it and shows 10 recovery codes once', async () => {
    const userId = await e.newUser();
    const started = await mfa.startTotpEnrolment(env, userId, { issuer: 'Acme' });
    expect(started.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(started.otpauthUri).toBe(
      `otpauth://totp/Acme:${encodeURIComponent(await userName(userId))}?issuer=Acme&secret=${started.secret}&algorithm=SHA1&digits=6&period=30`,
    );
    expect(started.qrSvg).toMatch(/^<svg /);
    const sealed = await storedSecret(started.factorId);
    expect(sealed).not.toContain(started.secret);
    expect(decrypt(t.masterKey, sealed)).toBe(started.secret);
    expect((await mfa.startTotpEnrolment(env, await e.newUser())).otpauthUri).toMatch(/^otpauth:\/\/totp\/IAM:/);

    const wrong = await mfa.confirmTotpEnrolment(env, userId, started.factorId, '000000');
    expect(wrong).toEqual({ ok: false, reason: 'invalid' });
    const confirmed = await mfa.confirmTotpEnrolment(env, userId, started.factorId, totpCode(started.secret, Date.now()));
    if (!confirmed.ok) throw new Error(confirmed.reason);
    expect(confirmed.recoveryCodes).toHaveLength(10);
    const hashes = confirmed.recoveryCodes.map((c) => createHash('sha256').update(c.replace(/-/g, '')).digest('hex'));
    expect([...(await storedCodeHashes(userId))].sort()).toEqual(hashes.sort());

    expect((await eventsOf('user.mfa_enrolment_started')).find((ev) => ev.data.userId === userId)?.data).toEqual({
      userId,
      factor: 'totp',
      factorId: started.factorId,
      replacedFactorId: null,
    });
    expect((await eventsOf('user.mfa_enrolled')).map((ev) => [ev.actor, ev.data])).toEqual([
      [
        { type: 'user', id: userId },
        { userId, factor: 'totp', factorId: started.factorId },
      ],
    ]);
    expect((await eventsOf('user.mfa_failed')).map((ev) => ev.data)).toEqual([
      { userId, factor: 'totp', stage: 'enrolment', reason: 'invalid', ip: '203.0.113.9' },
    ]);
    const audit = await auditEntries(t, { tenantId }, { action: 'user.mfa_enrolled' });
    expect(audit.find((a) => a.resource.id === userId)).toMatchObject({ environmentId: e.environmentId, ip: '203.0.113.9', requestId: 'req-1' });
    const recorded = JSON.stringify([await tenantEvents(t, tenantId, { environmentId: e.environmentId }), audit]);
    for (const secret of [started.secret, ...confirmed.recoveryCodes]) expect(recorded).not.toContain(secret);
  });

  it('replaces an unconfirmed enrolment, refuses to confirm the replaced one, and refuses a second enrolment once enrolled', async () => {
    const userId = await e.newUser();
    const first = await mfa.startTotpEnrolment(env, userId);
    const second = await mfa.startTotpEnrolment(env, userId);
    expect(await mfa.confirmTotpEnrolment(env, userId, first.factorId, totpCode(first.secret, Date.now()))).toEqual({ ok: false, reason: 'not_enrolled' });
    expect((await eventsOf('user.mfa_enrolment_started')).map((ev) => ev.data.replacedFactorId)).toEqual([null, first.factorId]);
    expect((await mfa.confirmTotpEnrolment(env, userId, second.factorId, totpCode(second.secret, Date.now()))).ok).toBe(true);
    await expect(mfa.startTotpEnrolment(env, userId)).rejects.toMatchObject({ statusCode: 409, code: 'mfa.already_enrolled' });
    await expect(mfa.startTotpEnrolment(env, crypto.randomUUID())).rejects.toMatchObject({ statusCode: 404, code: 'user.not_found' });
  });
});

describe('TOTP verification', () => {
  it('accepts a fresh code once: the same code, or one of an earlier step, is a replay; a wrong or expired code is invalid', async () => {
    const { userId, secret } = await enrolled();
    const now = Date.now();
    // The confirming code's step is used: a sign-in needs a later one.
    expect(await mfa.verifyTotp(env, userId, totpCode(secret, now))).toEqual({ ok: false, reason: 'replayed' });
    const next = totpCode(secret, now + 30_000);
    expect(await mfa.verifyTotp(env, userId, next)).toEqual({ ok: true });
    expect(await mfa.verifyTotp(env, userId, next)).toEqual({ ok: false, reason: 'replayed' });
    expect(await mfa.verifyTotp(env, userId, totpCode(secret, now - 90_000))).toEqual({ ok: false, reason: 'invalid' });
    expect(await mfa.verifyTotp(env, userId, 'abc')).toEqual({ ok: false, reason: 'invalid' });
    const other = await e.newUser();
    expect(await mfa.verifyTotp(env, other, totpCode(secret, now))).toEqual({ ok: false, reason: 'not_enrolled' });

    const failed = (await eventsOf('user.mfa_failed')).map((ev) => [ev.data.userId, ev.data.reason, ev.data.stage]);
    expect(failed).toEqual([
      [userId, 'replayed', 'verification'],
      [userId, 'replayed', 'verification'],
      [userId, 'invalid', 'verification'],
      [userId, 'invalid', 'verification'],
      [other, 'not_enrolled', 'verification'],
    ]);
    const lastUsed = await t.pool.oneFirst(
      sql.type(z.object({ at: z.string().nullable() }))`SELECT last_used_at::text AS at FROM user_totp_factors WHERE user_id = ${userId}`,
    );
    expect(lastUsed).not.toBeNull();
  });

  it('lets only one of two concurrent requests with the same code through', async () => {
    const { userId, secret } = await enrolled();
    const code = totpCode(secret, Date.now() + 30_000);
    const results = await Promise.all([1, 2, 3].map(() => mfa.verifyTotp(env, userId, code)));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok)).toEqual([
      { ok: false, reason: 'replayed' },
      { ok: false, reason: 'replayed' },
    ]);
  });
});

describe('recovery codes', () => {
  it('work once each (a reused code is a replay), counting what is left; a new set replaces the old', async () => {
    const { userId, recoveryCodes } = await enrolled();
    const [first, second] = recoveryCodes as [string, string];
    expect(await mfa.useRecoveryCode(env, userId, ` ${first.toLowerCase()} `)).toEqual({ ok: true, remaining: 9 });
    expect(await mfa.useRecoveryCode(env, userId, first)).toEqual({ ok: false, reason: 'replayed' });
    expect(await mfa.useRecoveryCode(env, userId, 'AAAA-BBBB-CCCC-DDDD')).toEqual({ ok: false, reason: 'invalid' });
    expect(await mfa.useRecoveryCode(env, await e.newUser(), second)).toEqual({ ok: false, reason: 'not_enrolled' });
    expect(await eventsOf('user.recovery_code_used')).toMatchObject([{ actor: { type: 'user', id: userId }, data: { userId, remaining: 9 } }]);
    expect((await eventsOf('user.mfa_failed')).map((ev) => [ev.data.factor, ev.data.reason])).toEqual([
      ['recovery_code', 'replayed'],
      ['recovery_code', 'invalid'],
      ['recovery_code', 'not_enrolled'],
    ]);

    const renewed = await mfa.regenerateRecoveryCodes(env, userId);
    if (!renewed.ok) throw new Error(renewed.reason);
    expect(renewed.recoveryCodes).toHaveLength(10);
    expect(await mfa.useRecoveryCode(env, userId, second)).toEqual({ ok: false, reason: 'invalid' });
    expect(await mfa.useRecoveryCode(env, userId, renewed.recoveryCodes[0]!)).toEqual({ ok: true, remaining: 9 });
    expect((await eventsOf('user.recovery_codes_regenerated')).map((ev) => ev.data)).toEqual([{ userId, count: 10 }]);
    expect(await mfa.regenerateRecoveryCodes(env, await e.newUser())).toEqual({ ok: false, reason: 'not_enrolled' });
  });

  it('lets only one of two concurrent uses of the same code through', async () => {
    const { userId, recoveryCodes } = await enrolled();
    const results = await Promise.all([1, 2].map(() => mfa.useRecoveryCode(env, userId, recoveryCodes[3]!)));
    expect(results).toContainEqual({ ok: true, remaining: 9 });
    expect(results).toContainEqual({ ok: false, reason: 'replayed' });
  });
});

describe('MFA requirement', () => {
  const policy = (mode: string, requiredRoleKeys: string[] = [], rememberDeviceSeconds: number | null = null) =>
    t.pool.query(sql.unsafe`
      INSERT INTO mfa_settings (environment_id, mode, required_role_keys, remember_device_seconds)
      VALUES (${e.environmentId}, ${mode}, ${sql.array(requiredRoleKeys, 'text')}, ${rememberDeviceSeconds})
      ON CONFLICT (environment_id) DO UPDATE SET mode = EXCLUDED.mode, required_role_keys = EXCLUDED.required_role_keys,
        remember_device_seconds = EXCLUDED.remember_device_seconds`);

  it('follows the mode, and requires MFA of holders of a listed role (directly, through a group, or by inheritance) when optional', async () => {
    await e.call('POST', '/roles', { key: 'admin' });
    await e.call('POST', '/roles', { key: 'super', inherits: ['admin'] });
    await e.call('POST', '/roles', { key: 'viewer' });
    const [direct, viaGroup, inherited, plain] = [await e.newUser(), await e.newUser(), await e.newUser(), await e.newUser()];
    const groupId = await e.newGroup();
    expect((await e.call('POST', '/assignments', { role: 'admin', userId: direct })).status).toBe(201);
    expect((await e.call('POST', '/assignments', { role: 'admin', groupId })).status).toBe(201);
    expect((await e.call('POST', '/assignments', { role: 'super', userId: inherited })).status).toBe(201);
    expect((await e.call('POST', '/assignments', { role: 'viewer', userId: plain })).status).toBe(201);
    const member = await t.app.inject({
      method: 'PUT',
      url: `/v1/tenants/${tenantId}/environments/${e.environmentId}/directory/groups/${groupId}/members/${viaGroup}`,
      headers: { authorization: `Bearer ${await t.token()}` },
    });
    expect(member.statusCode, member.body).toBeLessThan(300);

    const all = [direct, viaGroup, inherited, plain];
    const requirements = () => Promise.all(all.map((u) => mfa.mfaRequirement(env, u)));
    expect(await requirements()).toEqual(['off', 'off', 'off', 'off']);
    await policy('off', ['admin']);
    expect(await requirements()).toEqual(['off', 'off', 'off', 'off']);
    await policy('optional', ['admin']);
    expect(await requirements()).toEqual(['required', 'required', 'required', 'optional']);
    await policy('optional', ['super']);
    expect(await requirements()).toEqual(['optional', 'optional', 'required', 'optional']);
    await policy('required');
    expect(await requirements()).toEqual(['required', 'required', 'required', 'required']);
  });

  it('counts a role held through an active elevate grant (to the role, or to a group holding it) only while it is active', async () => {
    const el = await elevateEnvironment(t, await t.token());
    const elEnv = { tenantId, environmentId: el.environmentId };
    await t.pool.query(sql.unsafe`
      INSERT INTO mfa_settings (environment_id, mode, required_role_keys) VALUES (${el.environmentId}, 'optional', ${sql.array(['admin', 'reader'], 'text')})`);
    const grantOf = async (target: object) => {
      const policyId = await el.policy({ target });
      const { id } = (await el.call('POST', '/requests', { policyId, requesterId: el.users.alice, durationSeconds: 600 })).body.request;
      return (await el.call('POST', `/requests/${id}/approve`, { approverId: el.users.bob })).body.grant.id as string;
    };
    const alice = () => mfa.mfaRequirement(elEnv, el.users.alice!);
    for (const target of [
      { type: 'role', roleId: el.roles.admin },
      { type: 'group', groupId: el.groups.admins },
    ]) {
      const grantId = await grantOf(target);
      expect(await alice()).toBe('optional');
      expect((await el.call('POST', `/grants/${grantId}/activate`, {})).status).toBe(200);
      expect(await alice()).toBe('required');
      expect((await el.call('POST', `/grants/${grantId}/revoke`, { reason: 'done' })).status).toBe(200);
      expect(await alice()).toBe('optional');
    }
  });

  it('remembers a device for the policy’s lifetime: refused when tampered, expired, for another user or environment, or once turned off', async () => {
    const userId = await e.newUser();
    expect(await mfa.rememberDeviceToken(env, userId)).toBeNull();
    await policy('optional', [], 3600);
    const before = Date.now();
    const remembered = await mfa.rememberDeviceToken(env, userId);
    if (!remembered) throw new Error('no value');
    expect(remembered.maxAgeSeconds).toBe(3600);
    expect(Date.parse(remembered.expiresAt) - before).toBeGreaterThanOrEqual(3600_000 - 1000);
    expect(Date.parse(remembered.expiresAt) - before).toBeLessThanOrEqual(3600_000 + 1000);
    expect(await mfa.checkRememberDevice(env, userId, remembered.value)).toBe(true);

    const other = await e.newUser();
    expect(await mfa.checkRememberDevice(env, other, remembered.value)).toBe(false);
    const [payload, mac] = remembered.value.split('.') as [string, string];
    expect(await mfa.checkRememberDevice(env, userId, `${payload}.${mac.slice(0, -4)}AAAA`)).toBe(false);
    const key = rememberDeviceKey(t.masterKey);
    const expired = signRememberDevice(key, {
      environmentId: e.environmentId,
      userId,
      factorId: null,
      issuedAtMs: before - 7200_000,
      expiresAtMs: before - 3600_000,
    });
    expect(await mfa.checkRememberDevice(env, userId, expired)).toBe(false);
    const otherEnv = signRememberDevice(key, {
      environmentId: crypto.randomUUID(),
      userId,
      factorId: null,
      issuedAtMs: before,
      expiresAtMs: before + 3600_000,
    });
    expect(await mfa.checkRememberDevice(env, userId, otherEnv)).toBe(false);
    // A lifetime shortened since: a value older than the new lifetime no longer counts.
    await policy('optional', [], 60);
    const older = signRememberDevice(key, {
      environmentId: e.environmentId,
      userId,
      factorId: null,
      issuedAtMs: before - 120_000,
      expiresAtMs: before + 3600_000,
    });
    expect(await mfa.checkRememberDevice(env, userId, older)).toBe(false);
    await policy('optional', [], null);
    expect(await mfa.checkRememberDevice(env, userId, remembered.value)).toBe(false);

    expect((await eventsOf('user.mfa_failed')).map((ev) => [ev.data.userId, ev.data.factor, ev.data.reason])).toEqual([
      [other, 'remember_device', 'invalid'],
      [userId, 'remember_device', 'invalid'],
      [userId, 'remember_device', 'invalid'],
    ]);
  });

  it('forgets remembered devices once the user’s authenticator is removed or replaced', async () => {
    await policy('optional', [], 3600);
    const { userId } = await enrolled();
    const remembered = await mfa.rememberDeviceToken(env, userId);
    expect(await mfa.checkRememberDevice(env, userId, remembered!.value)).toBe(true);
    await t.pool.query(sql.unsafe`DELETE FROM user_totp_factors WHERE user_id = ${userId}`);
    expect(await mfa.checkRememberDevice(env, userId, remembered!.value)).toBe(false);
    const started = await mfa.startTotpEnrolment(env, userId);
    expect((await mfa.confirmTotpEnrolment(env, userId, started.factorId, totpCode(started.secret, Date.now()))).ok).toBe(true);
    expect(await mfa.checkRememberDevice(env, userId, remembered!.value)).toBe(false);
    expect(await mfa.checkRememberDevice(env, userId, (await mfa.rememberDeviceToken(env, userId))!.value)).toBe(true);
    expect(await eventsOf('user.mfa_failed')).toEqual([]);
  });
});
