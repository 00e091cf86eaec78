// The sweeper restarts the process of a row that should have one running but whose process failed or is
// missing (here: an invitation and a domain whose starts were lost, an invitation whose process failed on a
// programming error), through the outbox; a running or completed process is left alone. On both engines.
import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSweeper, type Sweeper } from '../../worker/sweeper.ts';
import { bearer } from '../helpers/app.ts';
import { ENGINES, startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';

const POLL = { timeout: 20_000, interval: 100 };

describe.each(ENGINES)('the process sweeper (%s)', (engine) => {
  let t: TestAppWithProcesses;
  let token: string;
  let sweeper: Sweeper | undefined;
  /** The invitation whose process hits a programming error on its first run (not retried: the process fails). */
  let failing: string | undefined;
  let broken = true;

  beforeAll(async () => {
    t = await startTestAppWithProcesses({
      engine,
      wrapActivities: (real) => ({
        ...real,
        expireInvitation: (input) => {
          if (input.invitationId === failing && broken) {
            broken = false;
            return Promise.reject(new TypeError("Cannot read properties of undefined (reading 'status')"));
          }
          return real.expireInvitation(input);
        },
      }),
    });
    token = await t.token();
  });
  afterAll(async () => {
    await sweeper?.stop();
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
  const storedStatus = (id: string) =>
    t.pool.oneFirst(sql.type(z.object({ status: z.string() }))`SELECT status FROM organization_invitations WHERE id = ${id}`);

  it('restarts failed and missing processes of pending rows, and leaves running and completed ones alone', async () => {
    // With the processes stopped, the starts wait in the outbox; two of them are then lost.
    await t.processes.stop();
    const lost = await invite(3_600_000);
    failing = await invite(1_000);
    const domain = (
      (await post(`/v1/tenants/${t.credentials.tenantId}/domains`, { domain: `s-${randomUUID().slice(0, 8)}.example.org`, validationMethod: 'dns_txt' })) as {
        domain: { id: string };
      }
    ).domain.id;
    await t.pool.query(sql.unsafe`DELETE FROM process_outbox WHERE process_id IN (${`invitation-expiry:${lost}`}, ${`domain-verification:${domain}`})`);
    await t.restartProcesses();

    await expect.poll(() => t.processStatus(`invitation-expiry:${failing!}`), POLL).toBe('failed');
    expect(await storedStatus(failing)).toBe('pending');
    expect(await t.processStatus(`invitation-expiry:${lost}`)).toBe('unknown');
    expect(await t.processStatus(`domain-verification:${domain}`)).toBe('unknown');

    const logged: string[] = [];
    sweeper = startSweeper({
      pool: t.pool,
      gateway: t.processes.gateway,
      scheduleMs: [0],
      domains: { verificationIntervalsMs: [3_600_000], verificationGiveUpMs: 86_400_000 },
      intervalMs: 100,
      graceMs: 0,
      onError: () => {},
      log: (m) => logged.push(m),
    });
    await expect.poll(() => storedStatus(failing!), POLL).toBe('expired');
    await expect.poll(() => t.processStatus(`invitation-expiry:${failing!}`), POLL).toBe('completed');
    await expect.poll(() => t.processStatus(`invitation-expiry:${lost}`), POLL).toBe('running');
    await expect.poll(() => t.processStatus(`domain-verification:${domain}`), POLL).toBe('running');
    expect(logged.join('\n')).toContain(`invitation-expiry:${failing}`);

    // Nothing left to restart: running processes and completed ones stay as they are.
    await sweeper.stop();
    expect(await sweeper.runOnce()).toBe(0);
  });
});
