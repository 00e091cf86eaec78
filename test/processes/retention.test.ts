// The deployment's retention process, on both engines: started at boot, it keeps monthly partitions of events, audit
// entries, decision logs and deliveries created ahead, and detaches then drops whole months past their retention (rows
// of recent months stay, and a month holding a pending delivery stays until it settles); each run starts its next run
// through the outbox, and it keeps working after a restart. On the embedded engine it also deletes the records of
// processes finished longer ago than PROCESS_HISTORY_RETENTION.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';

let t: TestAppWithProcesses;
let processId: string;
let tenantId: string;
let endpointId: string;
const POLL = { timeout: 20_000, interval: 100 };
const Count = z.object({ n: z.number() });
const Name = z.object({ name: z.string() });
const Id = z.object({ id: z.uuid() });

const monthOf = (db: CommonQueryMethods, daysAgo: number) =>
  db.oneFirst(sql.type(Name)`SELECT to_char((now() - ${daysAgo} * interval '1 day') AT TIME ZONE 'UTC', 'YYYYMM') AS name`);
const partitionsIn = async (db: CommonQueryMethods, table: string) => [
  ...(await db.anyFirst(sql.type(Name)`
    SELECT c.relname::text AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = ${table}::regclass ORDER BY 1`)),
];
const partitions = (table: string) => partitionsIn(t.pool, table);

/** Partitions of `table` from the month `daysAgo` ago, then one row in it (and one 10 days ago); returns the old row's month suffix. */
// One transaction: the process never sees the month's partition empty (it would drop it before the rows arrive). Its
// partition is checked inside: once committed, the process may drop it at any moment.
const oldRows = (daysAgo: number) =>
  t.pool.transaction(async (trx) => {
    for (const table of ['events', 'audit_logs'])
      await trx.query(sql.unsafe`SELECT partition_ensure_months(${table}, now() - ${daysAgo} * interval '1 day', 0)`);
    await trx.query(sql.unsafe`
    INSERT INTO events (type, actor, occurred_at) VALUES ('retention.test', '{}', now() - ${daysAgo} * interval '1 day'),
      ('retention.test', '{}', now() - interval '10 days')`);
    await trx.query(sql.unsafe`
    INSERT INTO audit_logs (actor_type, action, resource_type, occurred_at) VALUES ('system', 'retention.test', 'test', now() - ${daysAgo} * interval '1 day'),
      ('system', 'retention.test', 'test', now() - interval '10 days')`);
    const month = await monthOf(trx, daysAgo);
    expect(await partitionsIn(trx, 'events')).toContain(`events_p${month}`);
    return month;
  });

/**
 * Original deliveries (one attempt each) filed `daysAgo` days ago, in a month of their own, to an endpoint that never
 * receives them: `pending` ones wait for a retry due tomorrow (neither the sweeper nor the dispatcher takes them).
 */
const oldDeliveries = (daysAgo: number, status: 'succeeded' | 'pending') =>
  t.pool.transaction(async (trx) => {
    for (const table of ['deliveries', 'delivery_attempts'])
      await trx.query(sql.unsafe`SELECT partition_ensure_months(${table}, now() - ${daysAgo} * interval '1 day', 0)`);
    const id = await trx.oneFirst(sql.type(Id)`
      WITH e AS (INSERT INTO events (type, actor, tenant_id, occurred_at) VALUES ('retention.test', '{}', ${tenantId}, now() - ${daysAgo} * interval '1 day')
        RETURNING id, occurred_at)
      INSERT INTO deliveries (tenant_id, event_id, endpoint_id, filed_at, status, attempt_count, process_started, next_attempt_at, created_at)
      SELECT ${tenantId}, e.id, ${endpointId}, e.occurred_at, ${status}, 1, true,
        CASE WHEN ${status} = 'pending' THEN now() + interval '1 day' END, e.occurred_at FROM e
      RETURNING id`);
    await trx.query(sql.unsafe`
      INSERT INTO delivery_attempts (delivery_id, filed_at, attempt, started_at, duration_ms, status_code)
      SELECT id, filed_at, 1, created_at, 5, 503 FROM deliveries WHERE id = ${id}`);
    const month = await monthOf(trx, daysAgo);
    expect(await partitionsIn(trx, 'deliveries')).toContain(`deliveries_p${month}`);
    return { id, month };
  });
const deliveryCount = (ids: string[]) =>
  t.pool.oneFirst(sql.type(Count)`
    SELECT ((SELECT count(*) FROM deliveries WHERE id = ANY(${sql.array(ids, 'uuid')}))
      + (SELECT count(*) FROM delivery_attempts WHERE delivery_id = ANY(${sql.array(ids, 'uuid')})))::int AS n`);
/** Returns once a round of the process began after the call: a partition ahead, dropped here, is created again. */
const nextRound = async () => {
  const ahead = `deliveries_p${await monthAhead(3)}`;
  await t.pool.query(sql.unsafe`DROP TABLE IF EXISTS ${sql.identifier([ahead])}`);
  await expect.poll(() => partitions('deliveries'), POLL).toContain(ahead);
};
const olderThan = (table: 'events' | 'audit_logs', days: number) =>
  t.pool.oneFirst(sql.type(Count)`
    SELECT count(*)::int AS n FROM ${sql.identifier([table])} WHERE occurred_at < now() - ${days} * interval '1 day'`);
const monthAhead = (months: number) =>
  t.pool.oneFirst(sql.type(Name)`SELECT to_char(date_trunc('month', now() AT TIME ZONE 'UTC') + ${months} * interval '1 month', 'YYYYMM') AS name`);

describe.each(ENGINES)('retention process (%s)', (engine) => {
  beforeAll(async () => {
    t = await startTestAppWithProcesses({
      engine,
      env: {
        RETENTION_INTERVAL: '300ms',
        RETENTION_ROUNDS_PER_RUN: '2',
        RETENTION_MONTHS_AHEAD: '3',
        EVENTS_RETENTION: '400d',
        AUDIT_LOG_RETENTION: '200d',
        DELIVERIES_RETENTION: '60d',
        PROCESS_HISTORY_RETENTION: '1d',
        // A restart that stops a run between its last step (the next run's start enqueued) and its end leaves that start
        // nothing to do (the run it finds is not over yet): the sweeper starts the process again, here within a second.
        PROCESS_SWEEP_INTERVAL: '1s',
      },
    });
    processId = `retention:${await t.pool.oneFirst(sql.type(z.object({ db: z.string() }))`SELECT current_database()::text AS db`)}`;
    tenantId = await t.pool.oneFirst(sql.type(Id)`INSERT INTO tenants (name) VALUES ('retention') RETURNING id`);
    // Inactive: the dispatcher makes no deliveries to it.
    endpointId = await t.pool.oneFirst(sql.type(Id)`
      INSERT INTO webhook_endpoints (tenant_id, url, event_types, active) VALUES (${tenantId}, 'https://receiver.invalid/', '{retention.none}', false) RETURNING id`);
  });
  afterAll(() => t.close());

  it('is started at boot, creates months ahead and drops whole expired months, keeping recent rows and the DEFAULT partition', async () => {
    await expect.poll(() => t.processStatus(processId), POLL).toBe('running');
    const old = await oldRows(3 * 365);
    await expect.poll(() => partitions('events'), POLL).toContain(`events_p${await monthAhead(3)}`);
    await expect.poll(() => olderThan('events', 400), POLL).toBe(0);
    await expect.poll(() => olderThan('audit_logs', 200), POLL).toBe(0);
    expect(await partitions('events')).not.toContain(`events_p${old}`);
    expect(await partitions('events')).toContain('events_default');
    expect(await olderThan('events', 5)).toBeGreaterThan(0);
    // Audit entries are kept 200 days, events 400: a month 300 days old goes from the audit log only.
    const middle = await oldRows(300);
    await expect.poll(() => partitions('audit_logs'), POLL).not.toContain(`audit_logs_p${middle}`);
    expect(await partitions('events')).toContain(`events_p${middle}`);
  });

  it('drops a month of deliveries and their attempts past DELIVERIES_RETENTION, but not while one of it is still pending', async () => {
    const pending = await oldDeliveries(120, 'pending');
    const recent = await oldDeliveries(10, 'succeeded');
    await nextRound();
    const expired = await oldDeliveries(200, 'succeeded');
    await expect.poll(() => partitions('deliveries'), POLL).not.toContain(`deliveries_p${expired.month}`);
    expect(await partitions('delivery_attempts')).not.toContain(`delivery_attempts_p${expired.month}`);
    expect(await deliveryCount([expired.id])).toBe(0);
    // The pending delivery holds its month (and the later ones) back, whatever the retention says.
    expect(await partitions('deliveries')).toContain(`deliveries_p${pending.month}`);
    expect(await deliveryCount([pending.id, recent.id])).toBe(4);
    await t.pool.query(sql.unsafe`UPDATE deliveries SET status = 'succeeded', next_attempt_at = NULL WHERE id = ${pending.id}`);
    await expect.poll(() => partitions('deliveries'), POLL).not.toContain(`deliveries_p${pending.month}`);
    expect(await partitions('delivery_attempts')).not.toContain(`delivery_attempts_p${pending.month}`);
    expect(await deliveryCount([pending.id, recent.id])).toBe(2);
    expect(await partitions('deliveries')).toContain('deliveries_default');

    // One original delivery per (event, endpoint) still: a second one of a kept delivery's event is refused.
    await expect(
      t.pool.query(sql.unsafe`
        INSERT INTO deliveries (tenant_id, event_id, endpoint_id, filed_at) SELECT tenant_id, event_id, endpoint_id, filed_at FROM deliveries WHERE id = ${recent.id}`),
    ).rejects.toMatchObject({ constraint: expect.stringMatching(/^deliveries_p\d{6}_event_id_endpoint_id_filed_at_idx$/) });
  });

  it.runIf(engine === 'embedded')('deletes the records of processes finished longer ago than PROCESS_HISTORY_RETENTION, keeping recent ones', async () => {
    const finished = (id: string, daysAgo: number) =>
      t.pool.query(sql.unsafe`
        INSERT INTO dbos.workflow_status (workflow_uuid, status, name, created_at, updated_at, completed_at)
        SELECT ${id}, 'SUCCESS', 'retention-test', ms, ms, ms FROM (SELECT (extract(epoch FROM now() - ${daysAgo} * interval '1 day') * 1000)::bigint AS ms) t`);
    await finished('retention-test:old', 3);
    await finished('retention-test:recent', 0);
    const records = () => t.pool.anyFirst(sql.type(Name)`SELECT workflow_uuid AS name FROM dbos.workflow_status WHERE name = 'retention-test' ORDER BY 1`);
    await expect.poll(records, POLL).toEqual(['retention-test:recent']);
  });

  it('starts its next run through the outbox and keeps working after a restart', async () => {
    await expect
      .poll(() => t.pool.oneFirst(sql.type(Count)`SELECT count(*)::int AS n FROM process_outbox WHERE process_id = ${processId} AND dead_at IS NULL`), POLL)
      .toBe(1);
    await t.restartProcesses();
    const old = await oldRows(2 * 365);
    await expect.poll(() => partitions('events'), POLL).not.toContain(`events_p${old}`);
    expect(await olderThan('events', 400)).toBe(0);
    expect(await olderThan('events', 5)).toBeGreaterThan(0);
  });
});
