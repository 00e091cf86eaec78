import {
  createPool,
  createBigintTypeParser,
  createDateTypeParser,
  createNumericTypeParser,
  SchemaValidationError,
  type DatabasePool,
  type Interceptor,
  type QueryResultRow,
} from 'slonik';
import { queryTracing } from './query-tracing.ts';
import { tracingEnabled } from '../lib/telemetry.ts';

export type { CommonQueryMethods, DatabasePool, DatabaseTransactionConnection } from 'slonik';

// Rows typed with sql.type(schema) are validated (and transformed) by their zod schema, so a drift
// between SQL and code fails at the first query instead of leaking a wrong shape.
const resultParser: Interceptor = {
  name: 'result-parser',
  transformRow: (queryContext, query, row) => {
    const parser = queryContext.resultParser;
    if (!parser) return row;
    const result = parser['~standard'].validate(row);
    if (result instanceof Promise) throw new Error('async row schemas are not supported');
    if (result.issues) throw new SchemaValidationError(query, row, result.issues);
    return result.value as QueryResultRow;
  },
};

// Timestamps leave the database as ISO 8601 UTC strings, the form every API shape uses. Sessions run in
// UTC, so the common case is a string rewrite (V8's Date parser is slow on Postgres' text format).
const UTC_TEXT = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;
export function toIsoTimestamp(value: string): string {
  const m = UTC_TEXT.exec(value);
  if (!m) return new Date(value).toISOString();
  return `${m[1]}T${m[2]}.${(m[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
}
const isoTimestamp = { name: 'timestamptz', parse: toIsoTimestamp };

function inUtc(url: string): string {
  const parsed = new URL(url);
  if (!parsed.searchParams.has('options')) parsed.searchParams.set('options', '-c TimeZone=UTC');
  return parsed.toString();
}

export async function createDatabasePool(url: string, options: { maxPoolSize?: number } = {}): Promise<DatabasePool> {
  return createPool(inUtc(url), {
    // Query spans only when tracing is on (lib/telemetry.ts started before the pool): nothing on the hot path otherwise.
    interceptors: tracingEnabled() ? [queryTracing(), resultParser] : [resultParser],
    typeParsers: [createBigintTypeParser(), createDateTypeParser(), createNumericTypeParser(), isoTimestamp],
    maxPoolSize: options.maxPoolSize ?? 10,
    // Nothing we run leaves session state behind, so skip the DISCARD ALL round trip on every release.
    resetConnection: async () => {},
    statementTimeout: 30_000,
    // Keep warm connections through short quiet spells instead of reconnecting on the next burst.
    idleTimeout: 60_000,
  });
}
