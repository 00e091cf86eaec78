// Passkey ceremonies (api/passkeys) driven by a software authenticator that makes real WebAuthn responses: registration,
// sign-in with a user and discoverable, and every refusal (another challenge, another origin, a replay, a regressed
// counter, another environment's challenge), each recorded and changing nothing.
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPasskeyCeremonies, type PasskeyCeremonies, type PasskeyEnvironment } from '../../api/passkeys/index.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries, tenantEvents } from '../helpers/events.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { SoftAuthenticator } from '../helpers/soft-authenticator.ts';

const BASE_URL = 'https://id.example.test';
const ORIGIN = BASE_URL;

let t: TestApp;
let token: string;
let tenantId: string;
let env: PasskeyEnvironment;
let other: PasskeyEnvironment;
let passkeys: PasskeyCeremonies;
beforeAll(async () => {
  t = await startTestApp({ PUBLIC_BASE_URL: BASE_URL });
  token = await t.token();
  tenantId = t.credentials.tenantId;
  passkeys = createPasskeyCeremonies(t.pool, t.config.publicBaseUrl);
});
beforeEach(async () => {
  const [environmentId, otherId] = (await newEnvironments(t, token)).environmentIds;
  env = { environmentId: environmentId!, tenantId };
  other = { environmentId: otherId!, tenantId };
});
afterAll(() => t.close());

const newUser = async (environment = env, userName = `user-${crypto.randomUUID().slice(0, 8)}`) => {
  const res = await t.app.inject({
    method: 'POST',
    url: `/v1/tenants/${tenantId}/environments/${environment.environmentId}/directory/users`,
    headers: bearer(token),
    payload: { userName, displayName: `Display ${userName}` },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().user.id as string;
};

const Stored = z.object({ count: z.number(), counter: z.number(), lastUsedAt: z.string().nullable() });
const stored = (environmentId: string) =>
  t.pool.one(sql.type(Stored)`
    SELECT count(*)::int AS count, coalesce(max(counter), 0)::int AS counter, max(last_used_at)::text AS "lastUsedAt"
    FROM user_passkeys WHERE environment_id = ${environmentId}`);
const eventsOf = async (type: string, environment = env) =>
  (await tenantEvents(t, tenantId, { environmentId: environment.environmentId })).filter((e) => e.type === type);

/** A user with a passkey registered on `authenticator`. */
const registered = async (authenticator = new SoftAuthenticator({ origin: ORIGIN }), environment = env) => {
  const userId = await newUser(environment);
  const { challengeId, options } = await passkeys.registrationOptions(environment, userId);
  const result = await passkeys.verifyRegistration(environment, userId, challengeId, authenticator.create(options));
  if (!result.ok) throw new Error(`registration refused: ${result.reason}`);
  return { userId, authenticator, passkey: result.passkey };
};

describe('registration', () => {
  it('offers discoverable ES256/RS256 options for the RP of PUBLIC_BASE_URL, stores the passkey and records user.passkey_added', async () => {
    const userId = await newUser(env, 'ada');
    const { challengeId, options } = await passkeys.registrationOptions(env, userId);
    expect(challengeId).toMatch(/^[0-9a-f-]{36}$/);
    expect(options).toMatchObject({
      rp: { id: 'id.example.test' },
      user: { name: 'ada', displayName: 'Display ada' },
      pubKeyCredParams: [
        { type: 'public-key', alg: -7 },
        { type: 'public-key', alg: -257 },
      ],
      timeout: 300_000,
      attestation: 'none',
      excludeCredentials: [],
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
    });
    expect(Buffer.from(options.user.id, 'base64url').toString('hex')).toBe(userId.replaceAll('-', ''));

    const authenticator = new SoftAuthenticator({ origin: ORIGIN, synced: true, aaguid: 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4' });
    const result = await passkeys.verifyRegistration(env, userId, challengeId, authenticator.create(options), { origin: { ip: '203.0.113.7' } });
    expect(result).toEqual({
      ok: true,
      passkey: {
        id: expect.any(String),
        userId,
        name: 'Google Password Manager',
        deviceType: 'multiDevice',
        backedUp: true,
        transports: ['hybrid', 'internal'],
        aaguid: 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4',
        createdAt: expect.any(String),
        lastUsedAt: null,
      },
    });
    const passkeyId = result.ok ? result.passkey.id : '';
    const [event] = await eventsOf('user.passkey_added');
    expect(event).toMatchObject({
      actor: { type: 'user', id: userId },
      subject: { type: 'passkey', id: passkeyId },
      data: { userId, passkeyId, name: 'Google Password Manager', deviceType: 'multiDevice', backedUp: true, aaguid: 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4' },
    });
    const [audit] = await auditEntries(t, { tenantId }, { action: 'user.passkey_added', resourceId: passkeyId });
    expect(audit).toMatchObject({ ip: '203.0.113.7', actor: { type: 'user', id: userId } });

    // The next registration excludes the credential; a page-given name wins over the provider's.
    const again = await passkeys.registrationOptions(env, userId);
    expect(again.options.excludeCredentials).toEqual([{ id: authenticator.credentials[0]!.id, type: 'public-key', transports: ['hybrid', 'internal'] }]);
    const second = await passkeys.verifyRegistration(env, userId, again.challengeId, new SoftAuthenticator({ origin: ORIGIN }).create(again.options), {
      name: 'Work laptop',
    });
    expect(second).toMatchObject({ ok: true, passkey: { name: 'Work laptop', deviceType: 'singleDevice', backedUp: false, aaguid: null } });
  });

  it('refuses a response for another origin, another challenge, a replayed challenge or another user’s challenge, and stores nothing', async () => {
    const userId = await newUser();
    const authenticator = new SoftAuthenticator({ origin: ORIGIN });
    const cases: [string, () => Promise<unknown>][] = [
      [
        'origin_mismatch',
        async () => {
          const { challengeId, options } = await passkeys.registrationOptions(env, userId);
          return passkeys.verifyRegistration(env, userId, challengeId, authenticator.create(options, { origin: 'https://evil.example' }));
        },
      ],
      [
        'challenge_mismatch',
        async () => {
          const first = await passkeys.registrationOptions(env, userId);
          const second = await passkeys.registrationOptions(env, userId);
          return passkeys.verifyRegistration(env, userId, second.challengeId, authenticator.create(first.options));
        },
      ],
      [
        'challenge_mismatch',
        async () => {
          const someoneElse = await newUser();
          const { challengeId, options } = await passkeys.registrationOptions(env, someoneElse);
          return passkeys.verifyRegistration(env, userId, challengeId, authenticator.create(options));
        },
      ],
      [
        'verification_failed',
        async () => {
          const { challengeId, options } = await passkeys.registrationOptions(env, userId);
          const response = authenticator.create(options);
          return passkeys.verifyRegistration(env, userId, challengeId, { ...response, response: { ...response.response, attestationObject: 'AAAA' } });
        },
      ],
    ];
    for (const [reason, attempt] of cases) expect(await attempt(), reason).toEqual({ ok: false, reason });
    expect((await stored(env.environmentId)).count).toBe(0);

    // A used challenge cannot register a second credential.
    const { challengeId, options } = await passkeys.registrationOptions(env, userId);
    expect((await passkeys.verifyRegistration(env, userId, challengeId, authenticator.create(options))).ok).toBe(true);
    const replay = await passkeys.verifyRegistration(env, userId, challengeId, new SoftAuthenticator({ origin: ORIGIN }).create(options));
    expect(replay).toEqual({ ok: false, reason: 'expired' });
    expect((await stored(env.environmentId)).count).toBe(1);

    const refusals = await eventsOf('user.passkey_registration_failed');
    expect(refusals.map((e) => e.data.reason)).toEqual(['origin_mismatch', 'challenge_mismatch', 'challenge_mismatch', 'verification_failed', 'expired']);
    expect(refusals.every((e) => e.data.userId === userId)).toBe(true);
    const audited = await auditEntries(t, { tenantId }, { action: 'user.passkey_registration_failed' });
    expect(audited.filter((a) => a.environmentId === env.environmentId)).toHaveLength(5);
  });
});

describe('a credential id', () => {
  it('is unique per environment: another user registering it here is refused as already_registered, another environment may hold it', async () => {
    const { authenticator } = await registered();
    const credentialId = authenticator.credentials[0]!.id;
    const mallory = await newUser();
    const here = await passkeys.registrationOptions(env, mallory);
    const refused = await passkeys.verifyRegistration(env, mallory, here.challengeId, authenticator.create(here.options, { credentialId }));
    expect(refused).toEqual({ ok: false, reason: 'already_registered' });
    expect((await stored(env.environmentId)).count).toBe(1);
    expect((await eventsOf('user.passkey_registration_failed')).map((e) => e.data)).toEqual([{ userId: mallory, reason: 'already_registered', ip: null }]);

    const elsewhere = await newUser(other);
    const there = await passkeys.registrationOptions(other, elsewhere);
    const accepted = await passkeys.verifyRegistration(other, elsewhere, there.challengeId, authenticator.create(there.options, { credentialId }));
    expect(accepted).toMatchObject({ ok: true, passkey: { userId: elsewhere } });
  });
});

describe('sign-in', () => {
  it('refuses a challenge past its five minutes as expired', async () => {
    const { userId, authenticator } = await registered();
    const { challengeId, options } = await passkeys.authenticationOptions(env, userId);
    await t.pool.query(sql.unsafe`UPDATE webauthn_challenges SET expires_at = now() - interval '1 second' WHERE id = ${challengeId}`);
    expect(await passkeys.verifyAuthentication(env, challengeId, authenticator.get(options))).toEqual({ ok: false, reason: 'expired' });
    expect((await stored(env.environmentId)).lastUsedAt).toBeNull();
  });

  it('lets only one of two concurrent verifications of one challenge through', async () => {
    const { userId, authenticator } = await registered();
    const { challengeId, options } = await passkeys.authenticationOptions(env, userId);
    const response = authenticator.get(options);
    const results = await Promise.all([1, 2, 3].map(() => passkeys.verifyAuthentication(env, challengeId, response)));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok)).toEqual([
      { ok: false, reason: 'expired' },
      { ok: false, reason: 'expired' },
    ]);
  });

  it('signs a user in with their passkey (identifier first), moving the counter and setting lastUsedAt', async () => {
    const { userId, authenticator, passkey } = await registered(new SoftAuthenticator({ origin: ORIGIN, initialCounter: 1 }));
    const { challengeId, options } = await passkeys.authenticationOptions(env, userId);
    expect(options).toMatchObject({
      rpId: 'id.example.test',
      userVerification: 'preferred',
      timeout: 300_000,
      allowCredentials: [{ id: authenticator.credentials[0]!.id, type: 'public-key', transports: ['hybrid', 'internal'] }],
    });
    const result = await passkeys.verifyAuthentication(env, challengeId, authenticator.get(options));
    expect(result).toMatchObject({ ok: true, userId, passkeyId: passkey.id, userVerified: true, passkey: { lastUsedAt: expect.any(String) } });
    expect(await stored(env.environmentId)).toMatchObject({ counter: 2, lastUsedAt: expect.any(String) });
  });

  it('signs in with a discoverable passkey (conditional UI): no allowCredentials, the credential names the user', async () => {
    const { userId, authenticator, passkey } = await registered();
    const { challengeId, options } = await passkeys.authenticationOptions(env, null);
    expect(options.allowCredentials).toEqual([]);
    const result = await passkeys.verifyAuthentication(env, challengeId, authenticator.get(options));
    expect(result).toMatchObject({ ok: true, userId, passkeyId: passkey.id });
    // An authenticator without a counter stays at 0 and keeps signing in.
    const next = await passkeys.authenticationOptions(env, null);
    expect(await passkeys.verifyAuthentication(env, next.challengeId, authenticator.get(next.options))).toMatchObject({ ok: true, userId });
  });

  it('runs the caller’s onVerified in the transaction that records the use', async () => {
    const { userId, authenticator } = await registered();
    const { challengeId, options } = await passkeys.authenticationOptions(env, userId);
    const failing = passkeys.verifyAuthentication(env, challengeId, authenticator.get(options), {
      onVerified: () => Promise.reject(new Error('the sign-in could not be recorded')),
    });
    await expect(failing).rejects.toThrow('the sign-in could not be recorded');
    expect((await stored(env.environmentId)).lastUsedAt).toBeNull();
  });

  it('refuses another challenge, another origin, a replay, another environment’s challenge and an unknown credential, changing nothing', async () => {
    const { userId, authenticator, passkey } = await registered(new SoftAuthenticator({ origin: ORIGIN, initialCounter: 10 }));
    const before = await stored(env.environmentId);
    const cases: [string, () => Promise<unknown>][] = [
      [
        'challenge_mismatch',
        async () => {
          const first = await passkeys.authenticationOptions(env, userId);
          const second = await passkeys.authenticationOptions(env, userId);
          return passkeys.verifyAuthentication(env, second.challengeId, authenticator.get(first.options));
        },
      ],
      [
        'origin_mismatch',
        async () => {
          const { challengeId, options } = await passkeys.authenticationOptions(env, userId);
          return passkeys.verifyAuthentication(env, challengeId, authenticator.get(options, { origin: 'https://id.example.test.evil.example' }));
        },
      ],
      [
        'challenge_mismatch',
        async () => {
          const theirs = await passkeys.authenticationOptions(other, null);
          return passkeys.verifyAuthentication(env, theirs.challengeId, authenticator.get(theirs.options));
        },
      ],
      [
        'challenge_mismatch',
        async () => {
          // A registration challenge is not a sign-in challenge.
          const registration = await passkeys.registrationOptions(env, userId);
          return passkeys.verifyAuthentication(
            env,
            registration.challengeId,
            authenticator.get({ challenge: registration.options.challenge, rpId: 'id.example.test' }),
          );
        },
      ],
      [
        'unknown_credential',
        async () => {
          const stranger = new SoftAuthenticator({ origin: ORIGIN });
          stranger.create((await passkeys.registrationOptions(env, userId)).options);
          const { challengeId, options } = await passkeys.authenticationOptions(env, null);
          return passkeys.verifyAuthentication(env, challengeId, stranger.get(options));
        },
      ],
      [
        'verification_failed',
        async () => {
          const { challengeId, options } = await passkeys.authenticationOptions(env, userId);
          const response = authenticator.get(options);
          const signature = Buffer.from(response.response.signature, 'base64url');
          signature[signature.length - 1]! ^= 1;
          return passkeys.verifyAuthentication(env, challengeId, {
            ...response,
            response: { ...response.response, signature: signature.toString('base64url') },
          });
        },
      ],
      [
        'verification_failed',
        async () => {
          // Signed for another relying party (another RP id hash in the authenticator data).
          const { challengeId, options } = await passkeys.authenticationOptions(env, userId);
          return passkeys.verifyAuthentication(
            env,
            challengeId,
            authenticator.get(options, { rpId: 'evil.example', credential: authenticator.credentials[0] }),
          );
        },
      ],
      ['verification_failed', async () => passkeys.verifyAuthentication(env, (await passkeys.authenticationOptions(env, userId)).challengeId, { id: 'x' })],
    ];
    for (const [reason, attempt] of cases) expect(await attempt(), reason).toEqual({ ok: false, reason });
    expect(await stored(env.environmentId)).toEqual(before);

    // A replayed challenge: the first use signs in, the same response again is refused.
    const { challengeId, options } = await passkeys.authenticationOptions(env, userId);
    const response = authenticator.get(options);
    expect(await passkeys.verifyAuthentication(env, challengeId, response)).toMatchObject({ ok: true });
    const afterUse = await stored(env.environmentId);
    expect(await passkeys.verifyAuthentication(env, challengeId, response)).toEqual({ ok: false, reason: 'expired' });
    expect(await stored(env.environmentId)).toEqual(afterUse);

    const refusals = await eventsOf('user.passkey_sign_in_failed');
    expect(refusals.map((e) => e.data.reason)).toEqual([
      'challenge_mismatch',
      'origin_mismatch',
      'challenge_mismatch',
      'challenge_mismatch',
      'unknown_credential',
      'verification_failed',
      'verification_failed',
      'verification_failed',
      'expired',
    ]);
    // A refusal that got as far as a known passkey names it.
    expect(refusals.find((e) => e.data.reason === 'verification_failed')?.data).toMatchObject({ userId, passkeyId: passkey.id });
    expect(refusals.at(-2)?.data).toMatchObject({ userId: null, passkeyId: null });
    const audited = await auditEntries(t, { tenantId }, { action: 'user.passkey_sign_in_failed' });
    expect(audited.filter((a) => a.environmentId === env.environmentId)).toHaveLength(9);
  });

  it('refuses a correctly signed assertion whose counter went back, records user.passkey_counter_regressed and keeps the counter', async () => {
    const { userId, authenticator, passkey } = await registered(new SoftAuthenticator({ origin: ORIGIN, initialCounter: 5 }));
    const first = await passkeys.authenticationOptions(env, userId);
    expect(await passkeys.verifyAuthentication(env, first.challengeId, authenticator.get(first.options))).toMatchObject({ ok: true });
    expect((await stored(env.environmentId)).counter).toBe(6);

    for (const counter of [3, 6]) {
      const { challengeId, options } = await passkeys.authenticationOptions(env, userId);
      const result = await passkeys.verifyAuthentication(env, challengeId, authenticator.get(options, { counter }), { origin: { ip: '198.51.100.4' } });
      expect(result).toEqual({ ok: false, reason: 'counter_regressed' });
    }
    expect((await stored(env.environmentId)).counter).toBe(6);
    const events = await eventsOf('user.passkey_counter_regressed');
    expect(events.map((e) => e.data)).toEqual([
      { userId, passkeyId: passkey.id, storedCounter: 6, receivedCounter: 3, ip: '198.51.100.4' },
      { userId, passkeyId: passkey.id, storedCounter: 6, receivedCounter: 6, ip: '198.51.100.4' },
    ]);
  });

  it('lets only one of two assertions carrying the same counter through, even at the same time', async () => {
    const { userId, authenticator, passkey } = await registered(new SoftAuthenticator({ origin: ORIGIN, initialCounter: 6 }));
    const ceremonies = await Promise.all([1, 2].map(() => passkeys.authenticationOptions(env, userId)));
    const responses = ceremonies.map(({ options }) => authenticator.get(options, { counter: 7 }));
    const results = await Promise.all(ceremonies.map(({ challengeId }, i) => passkeys.verifyAuthentication(env, challengeId, responses[i])));
    expect(results.map((r) => (r.ok ? 'ok' : r.reason)).sort()).toEqual(['counter_regressed', 'ok']);
    expect((await stored(env.environmentId)).counter).toBe(7);
    const [event] = await eventsOf('user.passkey_counter_regressed');
    expect(event?.data).toEqual({ userId, passkeyId: passkey.id, storedCounter: 7, receivedCounter: 7, ip: null });
  });

  it('refuses a credential of another user than the challenge names, and a deactivated user', async () => {
    const alice = await registered();
    const bob = await registered();
    const forBob = await passkeys.authenticationOptions(env, bob.userId);
    const aliceAnswers = alice.authenticator.get({ ...forBob.options, allowCredentials: [] });
    expect(await passkeys.verifyAuthentication(env, forBob.challengeId, aliceAnswers)).toEqual({ ok: false, reason: 'unknown_credential' });

    const res = await t.app.inject({
      method: 'PATCH',
      url: `/v1/tenants/${tenantId}/environments/${env.environmentId}/directory/users/${alice.userId}`,
      headers: bearer(token),
      payload: { active: false },
    });
    expect(res.statusCode, res.body).toBe(200);
    const { challengeId, options } = await passkeys.authenticationOptions(env, null);
    expect(await passkeys.verifyAuthentication(env, challengeId, alice.authenticator.get(options))).toEqual({ ok: false, reason: 'user_inactive' });
    await expect(passkeys.registrationOptions(env, alice.userId)).rejects.toMatchObject({ statusCode: 403, code: 'passkey.user_inactive' });
    expect((await stored(env.environmentId)).lastUsedAt).toBeNull();
  });
});
