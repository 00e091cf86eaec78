// The MFA policy as the sign-in pages apply it (api/mfa): the requirement by mode and by role (assigned, through a
// group, inherited, elevated), and "remember this device" (signed, bound to the user, the environment and the
// user's authenticator, for the policy's lifetime).
import { sql } from 'slonik';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMfaService, type MfaEnv, type MfaService } from '../../api/mfa/index.ts';
import { rememberDeviceKey, signRememberDevice } from '../../lib/mfa/remember-device.ts';
import { totpCode } from '../../lib/mfa/totp.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { tenantEvents } from '../helpers/events.ts';
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

/** A user with a confirmed TOTP factor. */
const enrolled = async () => {
  const userId = await e.newUser();
  const started = await mfa.startTotpEnrolment(env, userId);
  const confirmed = await mfa.confirmTotpEnrolment(env, userId, started.factorId, totpCode(started.secret, Date.now()));
  if (!confirmed.ok) throw new Error(`confirm: ${confirmed.reason}`);
  return { userId };
};

describe('MFA requirement', () => {
  const policy = (mode: string, requiredRoleKeys: string[] = []) =>
    t.pool.query(sql.unsafe`
      INSERT INTO mfa_settings (environment_id, mode, required_role_keys)
      VALUES (${e.environmentId}, ${mode}, ${sql.array(requiredRoleKeys, 'text')})
      ON CONFLICT (environment_id) DO UPDATE SET mode = EXCLUDED.mode, required_role_keys = EXCLUDED.required_role_keys`);
  /** The session config's remember-device lifetime (null: devices are never remembered). */
  const rememberFor = async (rememberDeviceSeconds: number | null) => {
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/v1/tenants/${tenantId}/environments/${e.environmentId}/settings/session`,
      headers: bearer(await t.token()),
      payload: { rememberDeviceSeconds },
    });
    expect(res.statusCode, res.body).toBe(200);
  };

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
    await rememberFor(3600);
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
    await rememberFor(60);
    const older = signRememberDevice(key, {
      environmentId: e.environmentId,
      userId,
      factorId: null,
      issuedAtMs: before - 120_000,
      expiresAtMs: before + 3600_000,
    });
    expect(await mfa.checkRememberDevice(env, userId, older)).toBe(false);
    await rememberFor(null);
    expect(await mfa.checkRememberDevice(env, userId, remembered.value)).toBe(false);

    expect((await eventsOf('user.mfa_failed')).map((ev) => [ev.data.userId, ev.data.factor, ev.data.reason])).toEqual([
      [other, 'remember_device', 'invalid'],
      [userId, 'remember_device', 'invalid'],
      [userId, 'remember_device', 'invalid'],
    ]);
  });

  it('forgets remembered devices once the user’s authenticator is removed or replaced', async () => {
    await rememberFor(3600);
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
