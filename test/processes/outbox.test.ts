// Every process is started and signalled one way: through the process outbox, typed by process kind and topic,
// with the process id derived from kind and entity id; the dispatcher is the only caller of the engine's
// start and signal. An engine that is down leaves every start and signal (delivery batches included) in the
// outbox until it is back.
import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProcessOutboxQueries, processId } from '../../db/processes/outbox.ts';
import { OUTBOX_LEASE_MS, startDispatcher } from '../../worker/dispatcher.ts';
import type { ProcessContext, ProcessGateway } from '../../workflows/port.ts';
import type { InvitationExpiryTopics } from '../../workflows/invitation-expiry.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ ALLOW_PRIVATE_NETWORK_TARGETS: 'true' });
});
afterAll(() => t.close());

const Row = z.object({ action: z.string(), kind: z.string().nullable(), processId: z.string(), topic: z.string().nullable(), payload: z.any() });
const outboxRows = () =>
  t.pool.any(sql.type(Row)`SELECT action, kind, process_id AS "processId", topic, payload FROM process_outbox ORDER BY id`).then((rows) => [...rows]);

describe('the process outbox', () => {
  it('records starts and signals by kind and entity id, and claims them typed by kind and topic', async () => {
    const id = randomUUID();
    await t.pool.transaction(async (trx) => {
      const outbox = createProcessOutboxQueries(trx);
      await outbox.enqueueStart({ kind: 'invitation-expiry', entityId: id, tenantId: null, input: { invitationId: id, expiresAt: 1 } });
      await outbox.enqueueSignal({ kind: 'invitation-expiry', entityId: id, topic: 'invitation', payload: { revoked: true } });
      // A signal enqueued before signals recorded their kind.
      await trx.query(sql.unsafe`
        INSERT INTO process_outbox (action, process_id, topic, payload) VALUES ('signal', ${`invitation-expiry:${id}`}, 'invitation', '{"accepted":true}')`);
    });
    expect(processId('invitation-expiry', id)).toBe(`invitation-expiry:${id}`);
    expect(await outboxRows()).toEqual([
      { action: 'start', kind: 'invitation-expiry', processId: `invitation-expiry:${id}`, topic: null, payload: { invitationId: id, expiresAt: 1 } },
      { action: 'signal', kind: 'invitation-expiry', processId: `invitation-expiry:${id}`, topic: 'invitation', payload: { revoked: true } },
      { action: 'signal', kind: null, processId: `invitation-expiry:${id}`, topic: 'invitation', payload: { accepted: true } },
    ]);
    const entries = await t.pool.transaction(async (trx) => {
      const outbox = createProcessOutboxQueries(trx);
      const claimed = await outbox.claim(10);
      for (const e of claimed) await outbox.remove(e.id);
      return claimed;
    });
    // No trace context: tracing is off (lib/telemetry.ts).
    const common = { id: expect.any(Number), kind: 'invitation-expiry', processId: `invitation-expiry:${id}`, traceContext: null };
    expect(entries).toEqual([
      { ...common, action: 'start', tenantId: null, input: { invitationId: id, expiresAt: 1 } },
      { ...common, action: 'signal', topic: 'invitation', payload: { revoked: true } },
      { ...common, action: 'signal', topic: 'invitation', payload: { accepted: true } },
    ]);
  });

  it('refuses, at compile time, a process kind, input, topic or message the process does not declare', () => {
    // Never called: each line fails `tsc` without its directive (npm test runs tsc), which is the test.
    const typeChecks = (outbox: ReturnType<typeof createProcessOutboxQueries>, ctx: ProcessContext<InvitationExpiryTopics>, gateway: ProcessGateway) => [
      // @ts-expect-error no such process kind
      outbox.enqueueStart({ kind: 'invitation-expiri', entityId: 'x', tenantId: null, input: { invitationId: 'x', expiresAt: 1 } }),
      // @ts-expect-error the input of another kind
      outbox.enqueueStart({ kind: 'invitation-expiry', entityId: 'x', tenantId: null, input: { domainId: 'x', intervalsMs: [], giveUpAfterMs: 1 } }),
      // @ts-expect-error a topic the process does not receive on
      outbox.enqueueSignal({ kind: 'invitation-expiry', entityId: 'x', topic: 'invitations', payload: { revoked: true } }),
      // @ts-expect-error a message of another shape
      outbox.enqueueSignal({ kind: 'invitation-expiry', entityId: 'x', topic: 'invitation', payload: { revoked: 'yes' } }),
      // @ts-expect-error a process that receives no messages
      outbox.enqueueSignal({ kind: 'webhook-delivery', entityId: 'x', topic: 'invitation', payload: { revoked: true } }),
      // @ts-expect-error receiving on a topic the process does not declare
      ctx.receive('invitations', 1),
      // @ts-expect-error a message to a process that receives none, through the gateway
      gateway.signal('domain-verification', 'domain-verification:x', 'invitation', { revoked: true }),
    ];
    expect(typeChecks).toBeTypeOf('function');
  });

  it('is the one way processes start: an engine that is down leaves every start and signal, delivery batches included, in it', async () => {
    const token = await t.token();
    const tenantId = t.credentials.tenantId;
    const call = (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
      t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
    // A delivery to come (an endpoint and a matching event), and an invitation started then revoked.
    expect((await call('POST', `/v1/tenants/${tenantId}/webhooks`, { url: 'http://127.0.0.1:9/x', eventTypes: ['tenant.*'] })).statusCode).toBe(201);
    expect((await call('PATCH', `/v1/tenants/${tenantId}`, { description: 'outbox' })).statusCode).toBe(200);
    const created = await call('POST', `/v1/organizations/${t.credentials.organizationId}/invitations`, { email: 'outbox@example.com' });
    const invitation = created.json().invitation as { id: string; expiresAt: string };
    expect((await call('DELETE', `/v1/organizations/${t.credentials.organizationId}/invitations/${invitation.id}`)).statusCode).toBe(200);

    let down = true;
    const calls: unknown[][] = [];
    const engine = (fn: () => void) => (down ? Promise.reject(new Error('engine down')) : Promise.resolve(fn()));
    const gateway: ProcessGateway = {
      start: (kind, id, input, attributes) => engine(() => calls.push(['start', kind, id, input, attributes])),
      signal: (kind, id, topic, payload) => engine(() => calls.push(['signal', kind, id, topic, payload])),
      describe: (id) => Promise.resolve({ processId: id, status: 'unknown' }),
      cancel: () => Promise.resolve(),
    };
    const errors: unknown[] = [];
    const dispatcher = await startDispatcher({
      pool: t.pool,
      databaseUrl: t.databaseUrl,
      gateway,
      scheduleMs: [0, 100],
      pollMs: 60_000,
      onError: (e) => errors.push(e),
      outboxRetry: { initialMs: 0 }, // failed entries are due again at once: the second round carries them out
    });
    try {
      await dispatcher.runOnce();
      const batchId = await t.pool.oneFirst(sql.type(z.object({ b: z.uuid() }))`SELECT batch_id AS b FROM deliveries WHERE process_started`);
      const invitationProcess = `invitation-expiry:${invitation.id}`;
      expect(await outboxRows()).toEqual([
        {
          action: 'start',
          kind: 'invitation-expiry',
          processId: invitationProcess,
          topic: null,
          payload: expect.objectContaining({ invitationId: invitation.id }),
        },
        { action: 'signal', kind: 'invitation-expiry', processId: invitationProcess, topic: 'invitation', payload: { revoked: true } },
        { action: 'start', kind: 'delivery-batch', processId: `delivery-batch:${batchId}`, topic: null, payload: { batchId, scheduleMs: [0, 100] } },
      ]);
      expect(errors.length).toBeGreaterThan(0);
      expect(calls).toEqual([]);

      down = false;
      await dispatcher.runOnce();
      await expect.poll(outboxRows).toEqual([]);
      // In order per process (processes are started a few at once).
      expect(calls.filter((c) => c[2] === invitationProcess)).toEqual([
        ['start', 'invitation-expiry', invitationProcess, { invitationId: invitation.id, expiresAt: Date.parse(invitation.expiresAt) }, { tenantId: null }],
        ['signal', 'invitation-expiry', invitationProcess, 'invitation', { revoked: true }],
      ]);
      expect(calls.filter((c) => c[2] !== invitationProcess)).toEqual([
        ['start', 'delivery-batch', `delivery-batch:${batchId}`, { batchId, scheduleMs: [0, 100] }, { tenantId }],
      ]);
    } finally {
      await dispatcher.stop();
    }
  });

  /** A gateway that records what it is asked, and holds starts while `hold` is set. */
  const recordingGateway = () => {
    const calls: string[] = [];
    let release: () => void = () => {};
    const held = { hold: false, released: new Promise<void>((r) => (release = r)) };
    const gateway: ProcessGateway = {
      start: async (_kind, id) => {
        calls.push(`start ${id}`);
        if (held.hold) await held.released;
      },
      signal: (_kind, id, topic) => Promise.resolve(void calls.push(`signal ${id} ${topic}`)),
      describe: (id) => Promise.resolve({ processId: id, status: 'unknown' }),
      cancel: () => Promise.resolve(),
    };
    return { gateway, calls, held, release: () => release() };
  };
  const enqueueInvitation = async () => {
    const id = randomUUID();
    await t.pool.transaction(async (trx) => {
      const outbox = createProcessOutboxQueries(trx);
      await outbox.enqueueStart({ kind: 'invitation-expiry', entityId: id, tenantId: null, input: { invitationId: id, expiresAt: 1 } });
      await outbox.enqueueSignal({ kind: 'invitation-expiry', entityId: id, topic: 'invitation', payload: { revoked: true } });
    });
    return `invitation-expiry:${id}`;
  };

  it('resumes within seconds what a dispatcher that died (SIGKILL) had claimed, not after a minute', async () => {
    await expect.poll(outboxRows).toEqual([]);
    const processId = await enqueueInvitation();
    // A dispatcher claims both entries and dies before carrying them out: nothing renews its lease.
    expect(await createProcessOutboxQueries(t.pool).claim(10, OUTBOX_LEASE_MS)).toHaveLength(2);
    const claimedAt = Date.now();
    const { gateway, calls } = recordingGateway();
    const dispatcher = await startDispatcher({ pool: t.pool, databaseUrl: t.databaseUrl, gateway, scheduleMs: [0], pollMs: 200, onError: () => {} });
    try {
      await expect.poll(() => calls, { timeout: 20_000, interval: 100 }).toEqual([`start ${processId}`, `signal ${processId} invitation`]);
      expect(Date.now() - claimedAt).toBeLessThan(15_000);
      await expect.poll(outboxRows).toEqual([]);
    } finally {
      await dispatcher.stop();
    }
  });

  it('hands back, on stop, the entries it claimed and did not carry out', async () => {
    await expect.poll(outboxRows).toEqual([]);
    const processId = await enqueueInvitation();
    const { gateway, calls, held, release } = recordingGateway();
    held.hold = true;
    const dispatcher = await startDispatcher({ pool: t.pool, databaseUrl: t.databaseUrl, gateway, scheduleMs: [0], pollMs: 60_000, onError: () => {} });
    await expect.poll(() => calls).toEqual([`start ${processId}`]);
    const stopped = dispatcher.stop();
    release(); // the start in flight finishes; the signal after it is not sent by a stopping dispatcher
    await stopped;
    expect(calls).toEqual([`start ${processId}`]);
    const left = await t.pool.any(
      sql.type(z.object({ topic: z.string().nullable(), leased: z.boolean() }))`SELECT topic, leased_until IS NOT NULL AS leased FROM process_outbox`,
    );
    expect(left).toEqual([{ topic: 'invitation', leased: false }]);
    await t.pool.query(sql.unsafe`DELETE FROM process_outbox`);
  });
});
