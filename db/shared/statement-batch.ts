// Several statements in one round trip. The statements queued in one turn of the event loop (DataLoader's rule: until
// the current code gives way) run as one statement, each as a CTE whose rows come back as JSON and are parsed with the
// caller's schema; a lone statement runs as itself. The sign-in protections use it: each policy reads or counts at the
// same point of a sign-in, and on a virtual machine the wait for an idle Postgres backend to wake is most of a short
// statement's time, so one statement's wait beats one per policy (even when they run side by side).
//
// The CTEs share one snapshot and one transaction: they must not touch the same rows, and a setting one of them makes
// for its transaction (`set_config(…, true)`) holds for all.
//
// Each batch runs as a named prepared statement, named after its text: a connection parses and plans a shape once,
// then only binds and runs it. In bench:protections this took a sign-in's batch from about 1.1–1.4 ms to 0.7–0.9 ms
// (p50, with the backend idle between attempts). The shapes are few: one per set of policies and number of keys.
import { createHash } from 'node:crypto';
import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';

export interface StatementBatch {
  /** The rows of `statement` (a SELECT, or an INSERT/UPDATE/DELETE with RETURNING), each parsed by `row`. */
  rows<T>(statement: FragmentSqlToken, row: z.ZodType<T>): Promise<T[]>;
}

interface Queued {
  statement: FragmentSqlToken;
  row: z.ZodType;
  resolve(rows: unknown[]): void;
  reject(error: unknown): void;
}

const RowsOf = z.record(z.string(), z.array(z.unknown()));

/** The prepared statement's name: the same text is the same statement on every connection. */
const nameOf = (texts: string[]) => `batch_${createHash('sha256').update(texts.join('\0')).digest('hex').slice(0, 32)}`;

export function createStatementBatch(db: CommonQueryMethods): StatementBatch {
  let queued: Queued[] = [];

  async function run(batch: Queued[]): Promise<unknown[][]> {
    if (batch.length === 1) {
      const [only] = batch as [Queued];
      return [[...(await db.any(sql.prepared(nameOf([only.statement.sql]), only.row)`${only.statement}`))]];
    }
    const name = (i: number) => sql.identifier([`s${i}`]);
    const statements = batch.map((q, i) => sql.fragment`${name(i)} AS (${q.statement})`);
    const columns = batch.map((_, i) => sql.fragment`(SELECT coalesce(json_agg(${name(i)}), '[]'::json) FROM ${name(i)}) AS ${name(i)}`);
    const prepared = sql.prepared(nameOf(batch.map((q) => q.statement.sql)), RowsOf);
    const row = await db.one(prepared`WITH ${sql.join(statements, sql.fragment`, `)} SELECT ${sql.join(columns, sql.fragment`, `)}`);
    return batch.map((q, i) => row[`s${i}`]!.map((r) => q.row.parse(r)));
  }

  function dispatch() {
    const batch = queued;
    queued = [];
    run(batch).then(
      (results) => batch.forEach((q, i) => q.resolve(results[i]!)),
      (error: unknown) => batch.forEach((q) => q.reject(error)),
    );
  }

  return {
    rows<T>(statement: FragmentSqlToken, row: z.ZodType<T>): Promise<T[]> {
      return new Promise<unknown[]>((resolve, reject) => {
        if (queued.length === 0) process.nextTick(dispatch);
        queued.push({ statement, row, resolve, reject });
      }) as Promise<T[]>;
    },
  };
}
