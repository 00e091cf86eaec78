// The sweeper restarts the process of a row that should have one running but whose process failed or is
// missing (here: an invitation and a domain whose starts were lost, an invitation whose process failed on a
// programming error), through the outbox; a running or completed process is left alone.
import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { startDispatcher, type Dispatcher } from '../../worker/dispatcher.ts';
import { startEmbeddedEngine, type EmbeddedEngine } from '../../worker/embedded-engine.ts';
import { startSweeper, type Sweeper } from '../../worker/sweeper.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let token: string;
let engine: EmbeddedEngine | undefined;
let dispatcher: Dispatcher | undefined;
let sweeper: Sweeper | undefined;
beforeAll(async () => {
  t = await startTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
  token = await t.token();
});
afterAll(async () => {
  await sweeper?.stop();
  await dispatcher?.stop();
  await engine?.stop();
  await t.close();
});

const post = async (url: string, payload: object) => {
  const res = await t.app.inject({ method: 'POST', url, headers: bearer(token), payload });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
};
const invite = async (expiresInMs: number) =>
  (
    (await post(`/v1/organizations/${t.credentials.organizationId}/invitations`, {
      email: `${randomUUID().slice(0, 8)}@example.com`,
      expiresAt: new Date(Date.now() + expiresInMs).toISOString(),
    })) as { invitation: { id: string } }
  ).invitation.id;
const storedStatus = (id: string) => t.pool.oneFirst(sql.type(z.object({ status: z.string() }))`SELECT status FROM organization_invitations WHERE id = ${id}`);
const POLL = { timeout: 15_000, interval: 100 };

describe('the process sweeper', () => {
  it('restarts failed and missing processes of pending rows, and leaves running and completed ones alone', async () => {
    const lost = await invite(3_600_000);
    const failing = await invite(300);
    const domain = (
      (await post(`/v1/tenants/${t.credentials.tenantId}/domains`, { domain: `s-${randomUUID().slice(0, 8)}.example.org`, validationMethod: 'dns_txt' })) as {
        domain: { id: string };
      }
    ).domain.id;
    // Two starts are lost (e.g. dead in the outbox and cleared, or from before the outbox).
    await t.pool.query(sql.unsafe`DELETE FROM process_outbox WHERE process_id IN (${`invitation-expiry:${lost}`}, ${`domain-verification:${domain}`})`);

    // The failing invitation's process hits a programming error on its first run (not retried: it fails).
    const real = createActivities({
      pool: t.pool,
      masterKey: t.masterKey,
      timeoutMs: 1000,
      allowPrivate: true,
      disableAfterMs: 86_400_000,
      baseUrls: { pagerduty: 'http://127.0.0.1:9', datadog: null },
      dnsServers: [],
    });
    let broken = true;
    const activities = {
      ...real,
      expireInvitation: (input: { invitationId: string }) => {
        if (input.invitationId === failing && broken) {
          broken = false;
          return Promise.reject(new TypeError("Cannot read properties of undefined (reading 'status')"));
        }
        return real.expireInvitation(input);
      },
    };
    engine = await startEmbeddedEngine({ databaseUrl: t.databaseUrl, activities });
    const { gateway } = engine;
    const status = async (id: string) => (await gateway.describe(id)).status;
    dispatcher = await startDispatcher({ pool: t.pool, databaseUrl: t.databaseUrl, gateway, scheduleMs: [0], pollMs: 100, onError: () => {} });
    await expect.poll(() => status(`invitation-expiry:${failing}`), POLL).toBe('failed');
    expect(await storedStatus(failing)).toBe('pending');
    expect(await status(`invitation-expiry:${lost}`)).toBe('unknown');
    expect(await status(`domain-verification:${domain}`)).toBe('unknown');

    const logged: string[] = [];
    sweeper = startSweeper({
      pool: t.pool,
      gateway,
      scheduleMs: [0],
      domains: { verificationIntervalsMs: [3_600_000], verificationGiveUpMs: 86_400_000 },
      intervalMs: 100,
      graceMs: 0,
      onError: () => {},
      log: (m) => logged.push(m),
    });
    await expect.poll(() => storedStatus(failing), POLL).toBe('expired');
    expect(await status(`invitation-expiry:${failing}`)).toBe('completed');
    await expect.poll(() => status(`invitation-expiry:${lost}`), POLL).toBe('running');
    await expect.poll(() => status(`domain-verification:${domain}`), POLL).toBe('running');
    expect(logged.join('\n')).toContain(`invitation-expiry:${failing}`);

    // Nothing left to restart: running processes and completed ones stay as they are.
    await sweeper.stop();
    expect(await sweeper.runOnce()).toBe(0);
  });
});
