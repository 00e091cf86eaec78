// The deployment's retention process, on both engines: started at boot, it keeps monthly partitions of events, audit
// entries and decision logs created ahead, and detaches then drops whole months past their retention (rows of recent
// months stay); each run starts its next run through the outbox, and it keeps working after a restart.
import { sql } from 'slonik';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';

let t: TestAppWithProcesses;
let processId: string;
const POLL = { timeout: 20_000, interval: 100 };
const Count = z.object({ n: z.number() });
const Name = z.object({ name: z.string() });

/** Partitions of `table` from the month `daysAgo` ago, then one row in it (and one 10 days ago); returns the old row's month suffix. */
// One transaction: the process never sees the month's partition empty (it would drop it before the rows arrive).
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
    return trx.oneFirst(sql.type(Name)`SELECT to_char((now() - ${daysAgo} * interval '1 day') AT TIME ZONE 'UTC', 'YYYYMM') AS name`);
  });
const olderThan = (table: 'events' | 'audit_logs', days: number) =>
  t.pool.oneFirst(sql.type(Count)`
    SELECT count(*)::int AS n FROM ${sql.identifier([table])} WHERE occurred_at < now() - ${days} * interval '1 day'`);
const partitions = async (table: string) => [
  ...(await t.pool.anyFirst(sql.type(Name)`
    SELECT c.relname::text AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = ${table}::regclass ORDER BY 1`)),
];
const monthAhead = (months: number) =>
  t.pool.oneFirst(sql.type(Name)`SELECT to_char(date_trunc('month', now() AT TIME ZONE 'UTC') + ${months} * interval '1 month', 'YYYYMM') AS name`);

describe.each(ENGINES)('retention process (%s)', (engine) => {
  beforeAll(async () => {
    t = await startTestAppWithProcesses({
      engine,
      env: { RETENTION_INTERVAL: '300ms', RETENTION_ROUNDS_PER_RUN: '2', RETENTION_MONTHS_AHEAD: '3', EVENTS_RETENTION: '400d', AUDIT_LOG_RETENTION: '200d' },
    });
    processId = `retention:${await t.pool.oneFirst(sql.type(z.object({ db: z.string() }))`SELECT current_database()::text AS db`)}`;
  });
  afterAll(() => t.close());

  it('is started at boot, creates months ahead and drops whole expired months, keeping recent rows and the DEFAULT partition', async () => {
    await expect.poll(() => t.processStatus(processId), POLL).toBe('running');
    const old = await oldRows(3 * 365);
    expect(await partitions('events')).toContain(`events_p${old}`);
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
