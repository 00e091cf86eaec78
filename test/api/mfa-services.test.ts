// The MFA services the sign-in pages call (api/mfa): TOTP enrolment → verification → replay refused, and recovery
// codes used once; each outcome audited and evented. The policy's services are in mfa-policy.test.ts.
import { createHash } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMfaService, type MfaEnv, type MfaService } from '../../api/mfa/index.ts';
import { decrypt } from '../../lib/crypto.ts';
import { totpCode } from '../../lib/mfa/totp.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { rbacEnvironment, type RbacEnvironment } from '../helpers/rbac.ts';

let t: TestApp;
let mfa: MfaService;
let e: RbacEnvironment;
let env: MfaEnv;
let tenantId: string;
const NOW = Date.now();
beforeAll(async () => {
  t = await startTestApp();
  tenantId = t.credentials.tenantId;
  // A clock that stands still, so no code crosses a 30 s step between being made and being checked.
  mfa = createMfaService(t.pool, t.masterKey, () => NOW);
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
  const confirmed = await mfa.confirmTotpEnrolment(env, userId, started.factorId, totpCode(started.secret, NOW));
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
    const confirmed = await mfa.confirmTotpEnrolment(env, userId, started.factorId, totpCode(started.secret, NOW));
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
    expect(await mfa.confirmTotpEnrolment(env, userId, first.factorId, totpCode(first.secret, NOW))).toEqual({ ok: false, reason: 'not_enrolled' });
    expect((await eventsOf('user.mfa_enrolment_started')).map((ev) => ev.data.replacedFactorId)).toEqual([null, first.factorId]);
    expect((await mfa.confirmTotpEnrolment(env, userId, second.factorId, totpCode(second.secret, NOW))).ok).toBe(true);
    await expect(mfa.startTotpEnrolment(env, userId)).rejects.toMatchObject({ statusCode: 409, code: 'mfa.already_enrolled' });
    await expect(mfa.startTotpEnrolment(env, crypto.randomUUID())).rejects.toMatchObject({ statusCode: 404, code: 'user.not_found' });
  });
});

describe('TOTP verification', () => {
  it('accepts a fresh code once: the same code, or one of an earlier step, is a replay; a wrong or expired code is invalid', async () => {
    const { userId, secret } = await enrolled();
    const now = NOW;
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
    const audit = await auditEntries(t, { tenantId }, { action: 'user.mfa_failed', resourceId: userId });
    expect(audit).toHaveLength(4);
    expect(audit[0]).toMatchObject({ actor: { type: 'user', id: userId }, environmentId: e.environmentId, ip: '203.0.113.9', userAgent: 'vitest' });
    const lastUsed = await t.pool.oneFirst(
      sql.type(z.object({ at: z.string().nullable() }))`SELECT last_used_at::text AS at FROM user_totp_factors WHERE user_id = ${userId}`,
    );
    expect(lastUsed).not.toBeNull();
  });

  it('lets only one of two concurrent requests with the same code through', async () => {
    const { userId, secret } = await enrolled();
    const code = totpCode(secret, NOW + 30_000);
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
