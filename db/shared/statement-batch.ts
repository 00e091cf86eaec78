// Several statements in one round trip. The statements queued in one turn of the event loop (DataLoader's rule: until
// the current code gives way) run as one statement, each as a CTE whose rows come back as JSON and are parsed with the
// caller's schema; a lone statement runs as itself. The sign-in protections use it: each policy reads or counts at the
// same point of a sign-in, and on a virtual machine the wait for an idle Postgres backend to wake is most of a short
// statement's time, so one statement's wait beats one per policy (even when they run side by side).
//
// The CTEs share one snapshot and one transaction: they must not touch the same rows, and a setting one of them makes
// for its transaction (`set_config(…, true)`) holds for all.
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

export function createStatementBatch(db: CommonQueryMethods): StatementBatch {
  let queued: Queued[] = [];

  async function run(batch: Queued[]): Promise<unknown[][]> {
    if (batch.length === 1) {
      const [only] = batch as [Queued];
      return [[...(await db.any(sql.type(only.row)`${only.statement}`))]];
    }
    const name = (i: number) => sql.identifier([`s${i}`]);
    const statements = batch.map((q, i) => sql.fragment`${name(i)} AS (${q.statement})`);
    const columns = batch.map((_, i) => sql.fragment`(SELECT coalesce(json_agg(${name(i)}), '[]'::json) FROM ${name(i)}) AS ${name(i)}`);
    const row = await db.one(sql.type(RowsOf)`WITH ${sql.join(statements, sql.fragment`, `)} SELECT ${sql.join(columns, sql.fragment`, `)}`);
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
