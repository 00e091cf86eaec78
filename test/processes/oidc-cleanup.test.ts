// The deployment's OIDC clean-up process, on both engines: started at boot, it deletes the provider's expired
// records, password links and sign-in email codes expired over a day ago, superseded sign-up codes, directory
// sessions ended over 30 days ago and signing keys retired over 7 days ago, and retires due retiring keys (one event
// each); each run starts its next run through the outbox and ends (continue-as-new), it survives a restart, and the
// sweeper starts it when its start was lost. A user sees an expired session listed as inactive until 30 days after
// it ended.
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/app.ts';
import { newEnvironments } from '../helpers/fixtures.ts';
import { tenantEvents } from '../helpers/events.ts';
import { ENGINES, startTestAppWithProcesses, sweepOnce, type TestAppWithProcesses } from '../helpers/processes.ts';

let t: TestAppWithProcesses;
let tenantId: string;
let environmentId: string;
let userId: string;
let processId: string;
const POLL = { timeout: 20_000, interval: 100 };
const Id = z.object({ id: z.string() });
const Count = z.object({ n: z.number() });

/** `ms` from now (negative: in the past), as SQL. */
const at = (ms: number | null) => (ms === null ? null : sql.fragment`now() + ${ms} * interval '1 millisecond'`);
const DAY = 86_400_000;

const payload = (id: string, expiresInMs: number | null) =>
  t.pool.query(sql.unsafe`
    INSERT INTO oidc_payloads (environment_id, model, id, payload, expires_at) VALUES (${environmentId}, 'AccessToken', ${id}, '{}', ${at(expiresInMs)})`);
const passwordLink = (expiresInMs: number) =>
  t.pool.oneFirst(sql.type(Id)`
    INSERT INTO password_links (environment_id, user_id, token_hash, expires_at)
    VALUES (${environmentId}, ${userId}, ${sql.binary(crypto.getRandomValues(Buffer.alloc(32)))}, ${at(expiresInMs)}) RETURNING id`);
const session = (expiresInMs: number | null, revokedMsAgo: number | null = null) =>
  t.pool.oneFirst(sql.type(Id)`
    INSERT INTO directory_sessions (environment_id, user_id, session_uid, expires_at, revoked_at)
    VALUES (${environmentId}, ${userId}, ${crypto.randomUUID()}, ${at(expiresInMs)}, ${at(revokedMsAgo === null ? null : -revokedMsAgo)}) RETURNING id`);
/** A signing key: `retiring` until `retiresInMs`, or `retired` `retiredMsAgo` ago. */
const signingKey = (key: { retiresInMs: number } | { retiredMsAgo: number }) =>
  t.pool.oneFirst(sql.type(Id)`
    INSERT INTO oidc_signing_keys (environment_id, kid, alg, public_jwk, private_key_encrypted, status, retires_at, updated_at)
    VALUES (${environmentId}, ${crypto.randomUUID()}, 'ES256', '{"kty":"EC"}', 'sealed',
      ${'retiresInMs' in key ? 'retiring' : 'retired'}, ${'retiresInMs' in key ? at(key.retiresInMs) : null},
      ${'retiredMsAgo' in key ? at(-key.retiredMsAgo) : sql.fragment`now()`}) RETURNING id`);
const hash = () => sql.binary(crypto.getRandomValues(Buffer.alloc(32)));
const emailCode = (expiresInMs: number) =>
  t.pool.oneFirst(sql.type(Id)`
    INSERT INTO sign_in_email_codes (environment_id, interaction_uid, user_id, login, code_hash, token_hash, expires_at)
    VALUES (${environmentId}, ${crypto.randomUUID()}, ${userId}, 'ada', ${hash()}, ${hash()}, ${at(expiresInMs)}) RETURNING id`);
/** A sign-up code of `user`, created `createdMsAgo` ago. */
const signUpCode = (user: string, expiresInMs: number, createdMsAgo: number) =>
  t.pool.oneFirst(sql.type(Id)`
    INSERT INTO sign_up_codes (environment_id, user_id, email, code_hash, expires_at, created_at)
    VALUES (${environmentId}, ${user}, 'new@example.com', ${hash()}, ${at(expiresInMs)}, ${at(-createdMsAgo)}) RETURNING id`);
const newUser = (userName: string) =>
  t.pool.oneFirst(sql.type(Id)`
    INSERT INTO users (environment_id, user_name, emails, attributes) VALUES (${environmentId}, ${userName}, '[]', '{}') RETURNING id`);

const exists = async (
  table: 'oidc_payloads' | 'password_links' | 'directory_sessions' | 'oidc_signing_keys' | 'sign_in_email_codes' | 'sign_up_codes',
  id: string,
) => (await t.pool.oneFirst(sql.type(Count)`SELECT count(*)::int AS n FROM ${sql.identifier([table])} WHERE id = ${id}`)) === 1;
const keyStatus = (id: string) => t.pool.maybeOneFirst(sql.type(z.object({ status: z.string() }))`SELECT status FROM oidc_signing_keys WHERE id = ${id}`);
const retiredEvents = async (keyId: string) =>
  (await tenantEvents(t, tenantId, { type: 'oidc_signing_key.retired' })).filter((e) => (e.data.key as { id: string }).id === keyId);
/** The start of the next run waiting in the outbox, due later than `ms` from now. */
const nextRunWaiting = (ms = 0) =>
  t.pool.oneFirst(sql.type(Count)`
    SELECT count(*)::int AS n FROM process_outbox WHERE process_id = ${processId} AND dead_at IS NULL AND next_attempt_at > ${at(ms)}`);

describe.each(ENGINES)('OIDC clean-up process (%s)', (engine) => {
  beforeAll(async () => {
    t = await startTestAppWithProcesses({ engine, env: { OIDC_CLEANUP_INTERVAL_SECONDS: '1', OIDC_CLEANUP_ROUNDS_PER_RUN: '2' } });
    ({
      tenantId,
      environmentIds: [environmentId = ''],
    } = await newEnvironments(t));
    userId = await t.pool.oneFirst(sql.type(Id)`
      INSERT INTO users (environment_id, user_name, emails, attributes) VALUES (${environmentId}, 'ada', '[]', '{}') RETURNING id`);
    processId = `oidc-cleanup:${await t.pool.oneFirst(sql.type(z.object({ db: z.string() }))`SELECT current_database()::text AS db`)}`;
  });
  afterAll(() => t.close());

  it('is started at boot, deletes what has ended past its retention and keeps the rest', async () => {
    await expect.poll(() => t.processStatus(processId), POLL).toBe('running');
    await payload('expired', -1000);
    await payload('valid', 3_600_000);
    await payload('no-expiry', null);
    const oldLink = await passwordLink(-DAY - 60_000);
    const recentLink = await passwordLink(-3_600_000);
    const longExpired = await session(-31 * DAY);
    const recentlyExpired = await session(-DAY);
    const longRevoked = await session(3_600_000, 31 * DAY);
    const active = await session(3_600_000);
    const longRetired = await signingKey({ retiredMsAgo: 8 * DAY });
    const recentlyRetired = await signingKey({ retiredMsAgo: DAY });

    await expect.poll(() => exists('oidc_payloads', 'expired'), POLL).toBe(false);
    await expect.poll(() => exists('password_links', oldLink), POLL).toBe(false);
    await expect.poll(() => exists('directory_sessions', longExpired), POLL).toBe(false);
    await expect.poll(() => exists('directory_sessions', longRevoked), POLL).toBe(false);
    await expect.poll(() => exists('oidc_signing_keys', longRetired), POLL).toBe(false);
    expect(await exists('oidc_payloads', 'valid')).toBe(true);
    expect(await exists('oidc_payloads', 'no-expiry')).toBe(true);
    expect(await exists('password_links', recentLink)).toBe(true);
    expect(await exists('directory_sessions', recentlyExpired)).toBe(true);
    expect(await exists('directory_sessions', active)).toBe(true);
    expect(await keyStatus(recentlyRetired)).toBe('retired');
  });

  it("deletes sign-in email codes and superseded sign-up codes a day after their expiry, and keeps a pending sign-up's code", async () => {
    const oldEmailCode = await emailCode(-DAY - 60_000);
    const recentEmailCode = await emailCode(-3_600_000);
    const liveEmailCode = await emailCode(600_000);
    // A sign-up whose code was sent again (two at once): the older code is superseded.
    const pending = await newUser(`pending-${crypto.randomUUID()}`);
    const superseded = await signUpCode(pending, -2 * DAY, 2 * DAY + 600_000);
    const latest = await signUpCode(pending, -2 * DAY + 1000, 2 * DAY + 599_000);
    // An abandoned sign-up: its only code long expired. It still marks the sign-up pending (no password sign-in
    // until the email is verified; a new sign-up with that email takes the account over), so it stays.
    const abandoned = await newUser(`abandoned-${crypto.randomUUID()}`);
    const onlyCode = await signUpCode(abandoned, -30 * DAY, 30 * DAY + 600_000);

    await expect.poll(() => exists('sign_in_email_codes', oldEmailCode), POLL).toBe(false);
    await expect.poll(() => exists('sign_up_codes', superseded), POLL).toBe(false);
    expect(await exists('sign_in_email_codes', recentEmailCode)).toBe(true);
    expect(await exists('sign_in_email_codes', liveEmailCode)).toBe(true);
    expect(await exists('sign_up_codes', latest)).toBe(true);
    expect(await exists('sign_up_codes', onlyCode)).toBe(true);
  });

  it('deletes brute-force counters whose window and lockout have ended, and keeps a current lockout', async () => {
    const counter = (key: string, expiresInMs: number, lockedForMs: number | null) =>
      t.pool.oneFirst(sql.type(Id)`
        INSERT INTO sign_in_failures (environment_id, kind, key, failures, expires_at, locked_until)
        VALUES (${environmentId}, 'ip', ${key}, 3, ${at(expiresInMs)}, ${at(lockedForMs)}) RETURNING id`);
    const ended = await counter(`ended-${crypto.randomUUID()}`, -1000, -1000);
    const locked = await counter(`locked-${crypto.randomUUID()}`, 600_000, 600_000);
    const counting = await counter(`counting-${crypto.randomUUID()}`, 600_000, null);
    const left = (id: string) => t.pool.oneFirst(sql.type(Count)`SELECT count(*)::int AS n FROM sign_in_failures WHERE id = ${id}`);
    await expect.poll(() => left(ended), POLL).toBe(0);
    expect([await left(locked), await left(counting)]).toEqual([1, 1]);
  });

  it('works through a backlog of sign-in email codes larger than one batch', async () => {
    const backlog = 1500;
    await t.pool.query(sql.unsafe`
      INSERT INTO sign_in_email_codes (environment_id, interaction_uid, login, code_hash, token_hash, expires_at)
      SELECT ${environmentId}, 'backlog-' || n, 'ada', sha256(n::text::bytea), sha256(n::text::bytea), now() - interval '2 days'
      FROM generate_series(1, ${backlog}) n`);
    const left = () => t.pool.oneFirst(sql.type(Count)`SELECT count(*)::int AS n FROM sign_in_email_codes WHERE interaction_uid LIKE 'backlog-%'`);
    await expect.poll(left, POLL).toBe(0);
  });

  it("leaves an expired session in the user's list as inactive, and removes it 30 days after it ended", async () => {
    const sessionsUrl = `/v1/tenants/${tenantId}/environments/${environmentId}/directory/users/${userId}/sessions`;
    const listed = async () => {
      const res = await t.app.inject({ method: 'GET', url: sessionsUrl, headers: bearer(await t.token()) });
      expect(res.statusCode).toBe(200);
      return new Map((res.json().sessions as { id: string; active: boolean }[]).map((s) => [s.id, s.active]));
    };
    const ended = await session(-31 * DAY);
    const expired = await session(-DAY);
    const active = await session(3_600_000);
    await expect.poll(async () => (await listed()).has(ended), POLL).toBe(false);
    const sessions = await listed();
    expect(sessions.get(expired)).toBe(false);
    expect(sessions.get(active)).toBe(true);
  });

  it('works through a backlog larger than one batch', async () => {
    const backlog = 2500;
    await t.pool.query(sql.unsafe`
      INSERT INTO oidc_payloads (environment_id, model, id, payload, expires_at)
      SELECT ${environmentId}, 'ClientCredentials', 'backlog-' || n, '{}', now() - interval '1 minute' FROM generate_series(1, ${backlog}) n`);
    const left = () => t.pool.oneFirst(sql.type(Count)`SELECT count(*)::int AS n FROM oidc_payloads WHERE id LIKE 'backlog-%'`);
    await expect.poll(left, POLL).toBe(0);
  });

  it('retires a retiring key once its retirement time has passed, with one event from the system', async () => {
    const due = await signingKey({ retiresInMs: 1500 });
    const later = await signingKey({ retiresInMs: 3_600_000 });
    expect(await keyStatus(due)).toBe('retiring');
    await expect.poll(() => keyStatus(due), POLL).toBe('retired');
    expect(await keyStatus(later)).toBe('retiring');
    const events = await retiredEvents(due);
    expect(events).toEqual([
      expect.objectContaining({
        actor: { type: 'system', id: 'oidc-cleanup' },
        environmentId,
        data: { key: expect.objectContaining({ id: due, alg: 'ES256', status: 'retired', retiresAt: null }), retiredAfter: expect.any(String) },
      }),
    ]);
    expect(await retiredEvents(later)).toEqual([]);
  });

  it('continues as a new run: each run starts its next one through the outbox, and the clean-up goes on', async () => {
    await expect.poll(() => nextRunWaiting(), POLL).toBe(1);
    await expect.poll(() => t.processStatus(processId), POLL).toBe('completed');
    await expect.poll(() => t.processStatus(processId), POLL).toBe('running');
    await payload('expired-in-a-later-run', 500);
    await expect.poll(() => exists('oidc_payloads', 'expired-in-a-later-run'), POLL).toBe(false);
  });

  it('keeps working after a restart of the processes, and retires a key exactly once', async () => {
    const due = await signingKey({ retiresInMs: 1500 });
    await t.restartProcesses();
    await payload('expired-after-restart', 500);
    await expect.poll(() => exists('oidc_payloads', 'expired-after-restart'), POLL).toBe(false);
    await expect.poll(() => keyStatus(due), POLL).toBe('retired');
    expect(await retiredEvents(due)).toHaveLength(1);
  });

  it('is started by the sweeper when the start of its next run was lost', async () => {
    // Between two runs: the next run's start waits (not due for a while yet), and is lost.
    await expect
      .poll(
        async () => (await t.pool.query(sql.unsafe`DELETE FROM process_outbox WHERE process_id = ${processId} AND next_attempt_at > ${at(300)}`)).rowCount,
        POLL,
      )
      .toBe(1);
    await expect.poll(() => t.processStatus(processId), POLL).toBe('completed');
    await payload('expired-before-sweep', -1000);
    expect((await sweepOnce(t)).started).toBe(1);
    await expect.poll(() => t.processStatus(processId), POLL).toBe('running');
    await expect.poll(() => exists('oidc_payloads', 'expired-before-sweep'), POLL).toBe(false);
  });
});
