// An outbox entry the engine refuses (a message to a process that does not exist, an engine error) is retried with
// its own backoff and does not hold up the entries behind it; out of attempts it is dead, which operators list and
// retry through the API. A message to a process that has finished is dropped with a log line. The engine is never
// called while the dispatcher holds a transaction open on the outbox.
import { randomUUID } from 'node:crypto';
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProcessOutboxQueries } from '../../db/processes/outbox.ts';
import { startDispatcher } from '../../worker/dispatcher.ts';
import type { ProcessDescription, ProcessGateway } from '../../workflows/port.ts';
import { bearer, startTestApp, type TestApp } from '../helpers/app.ts';
import { auditEntries } from '../helpers/events.ts';
import { otherOrganization } from '../helpers/fixtures.ts';

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await startTestApp();
  admin = await t.token();
});
afterAll(() => t.close());

const call = (token: string, method: 'GET' | 'POST', url: string) => t.app.inject({ method, url, headers: bearer(token) });
const pendingCount = () => t.pool.oneFirst(sql.type(z.object({ n: z.number() }))`SELECT count(*)::int AS n FROM process_outbox WHERE dead_at IS NULL`);

/** A gateway over a set of processes: signals to an id it does not know throw, as the engines' do. */
function fakeEngine(statuses: Record<string, ProcessDescription['status']> = {}) {
  const calls: string[] = [];
  const gateway: ProcessGateway = {
    start: async (_kind, id) => {
      // A row lock held by an open dispatcher transaction would make this fail at once.
      await t.pool.query(sql.unsafe`SELECT id FROM process_outbox WHERE process_id = ${id} FOR UPDATE NOWAIT`);
      statuses[id] ??= 'running';
      calls.push(`start ${id}`);
    },
    signal: async (_kind, id, topic) => {
      await t.pool.query(sql.unsafe`SELECT id FROM process_outbox WHERE process_id = ${id} FOR UPDATE NOWAIT`);
      if (statuses[id] !== 'running') throw new Error(`workflow ${id} not found`);
      calls.push(`signal ${id} ${topic}`);
    },
    describe: (id) => Promise.resolve({ processId: id, status: statuses[id] ?? 'unknown' }),
    cancel: () => Promise.resolve(),
  };
  return { gateway, calls, statuses };
}

describe('a poison process outbox entry', () => {
  it('is retried with backoff without blocking the others, then dead; operators list and retry it', async () => {
    const poison = Array.from({ length: 150 }, () => randomUUID());
    const good = randomUUID();
    await t.pool.transaction(async (trx) => {
      const outbox = createProcessOutboxQueries(trx);
      for (const id of poison) await outbox.enqueueSignal({ kind: 'invitation-expiry', entityId: id, topic: 'invitation', payload: { revoked: true } });
      await outbox.enqueueStart({ kind: 'invitation-expiry', entityId: good, tenantId: null, input: { invitationId: good, expiresAt: 1 } });
      await outbox.enqueueSignal({ kind: 'invitation-expiry', entityId: good, topic: 'invitation', payload: { accepted: true } });
    });
    const engine = fakeEngine();
    const errors: unknown[] = [];
    const dispatcher = await startDispatcher({
      pool: t.pool,
      databaseUrl: t.databaseUrl,
      gateway: engine.gateway,
      scheduleMs: [0],
      pollMs: 50,
      onError: (e) => errors.push(e),
      log: () => {},
      outboxRetry: { initialMs: 20, maxMs: 40, maxAttempts: 3 },
    });
    try {
      // The good process is started and signalled, in order, behind 150 entries that fail.
      await expect.poll(() => engine.calls, { timeout: 10_000 }).toEqual([`start invitation-expiry:${good}`, `signal invitation-expiry:${good} invitation`]);
      // The poison entries run out of attempts and stop being tried.
      await expect.poll(pendingCount, { timeout: 10_000 }).toBe(0);
    } finally {
      await dispatcher.stop();
    }
    expect(errors).toHaveLength(150 * 3);

    const page = await call(admin, 'GET', '/v1/process-outbox?state=dead&limit=100');
    expect(page.statusCode).toBe(200);
    const body = page.json() as { entries: { id: number; processId: string }[]; nextCursor: string | null; hasMore: boolean };
    expect(body.hasMore).toBe(true);
    expect(body.entries).toHaveLength(100);
    expect(body.entries[0]).toEqual({
      id: expect.any(Number),
      action: 'signal',
      kind: 'invitation-expiry',
      processId: `invitation-expiry:${poison[0]}`,
      tenantId: null,
      topic: 'invitation',
      attempts: 3,
      lastError: `workflow invitation-expiry:${poison[0]} not found`,
      nextAttemptAt: expect.any(String),
      deadAt: expect.any(String),
      createdAt: expect.any(String),
    });
    const rest = (await call(admin, 'GET', `/v1/process-outbox?state=dead&limit=100&cursor=${body.nextCursor}`)).json();
    expect(rest).toEqual({ entries: expect.any(Array), nextCursor: null, hasMore: false });
    expect([...body.entries, ...rest.entries].map((e: { processId: string }) => e.processId)).toEqual(poison.map((id) => `invitation-expiry:${id}`));
    expect((await call(admin, 'GET', '/v1/process-outbox?state=pending')).json()).toEqual({ entries: [], nextCursor: null, hasMore: false });

    // The process shows up: an operator retries its message, which now goes through.
    const first = body.entries[0]!;
    engine.statuses[first.processId] = 'running';
    const retried = await call(admin, 'POST', `/v1/process-outbox/${first.id}/retry`);
    expect(retried.statusCode).toBe(200);
    expect(retried.json().entry).toMatchObject({ id: first.id, attempts: 0, deadAt: null });
    expect((await call(admin, 'GET', '/v1/process-outbox?state=pending')).json().entries).toEqual([expect.objectContaining({ id: first.id })]);
    // Audited, with its event, where operators read: the operator organization's log.
    const audit = await auditEntries(
      t,
      { organizationId: t.credentials.organizationId },
      { resourceType: 'process_outbox_entry', resourceId: String(first.id) },
    );
    expect(audit.map((a) => a.action)).toEqual(['process_outbox.retry']);
    const [event] = await t.pool.any(sql.type(z.object({ type: z.string(), data: z.any() }))`
      SELECT type, data FROM events WHERE type = 'process_outbox.entry_retried' AND organization_id = ${t.credentials.organizationId}`);
    expect(event).toEqual({
      type: 'process_outbox.entry_retried',
      data: { entry: { id: first.id, action: 'signal', kind: 'invitation-expiry', processId: first.processId } },
    });
    const again = await startDispatcher({ pool: t.pool, databaseUrl: t.databaseUrl, gateway: engine.gateway, scheduleMs: [0], pollMs: 50, onError: () => {} });
    try {
      await expect.poll(() => engine.calls.at(-1)).toBe(`signal ${first.processId} invitation`);
      await expect.poll(async () => (await call(admin, 'POST', `/v1/process-outbox/${first.id}/retry`)).statusCode).toBe(404);
    } finally {
      await again.stop();
    }
  });

  it('is listed and retried by operators only (403 process_outbox.operator_only)', async () => {
    const other = await otherOrganization(t);
    for (const [method, url] of [
      ['GET', '/v1/process-outbox'],
      ['POST', '/v1/process-outbox/1/retry'],
    ] as const) {
      const refused = await call(other.token, method, url);
      expect(refused.statusCode, url).toBe(403);
      expect(refused.json()).toEqual({ error: expect.any(String), code: 'process_outbox.operator_only', requestId: expect.any(String) });
    }
    const missing = await call(admin, 'POST', '/v1/process-outbox/999999999/retry');
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'process_outbox_entry.not_found' });
  });

  it('is dropped with a log line when it is a message to a process that has finished', async () => {
    const done = randomUUID();
    await createProcessOutboxQueries(t.pool).enqueueSignal({ kind: 'invitation-expiry', entityId: done, topic: 'invitation', payload: { revoked: true } });
    const engine = fakeEngine({ [`invitation-expiry:${done}`]: 'completed' });
    const logged: string[] = [];
    const errors: unknown[] = [];
    const dispatcher = await startDispatcher({
      pool: t.pool,
      databaseUrl: t.databaseUrl,
      gateway: engine.gateway,
      scheduleMs: [0],
      pollMs: 60_000,
      onError: (e) => errors.push(e),
      log: (m) => logged.push(m),
    });
    try {
      await dispatcher.runOnce();
    } finally {
      await dispatcher.stop();
    }
    expect(logged).toEqual([`process outbox: dropped the invitation message to invitation-expiry:${done}, which has finished`]);
    expect(errors).toEqual([]);
    expect(await pendingCount()).toBe(0);
    expect((await call(admin, 'GET', '/v1/process-outbox?state=dead&limit=200')).json().entries).not.toContainEqual(
      expect.objectContaining({ processId: `invitation-expiry:${done}` }),
    );
  });
});
