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

// Timestamps leave the database as ISO 8601 UTC strings, the form every API shape uses.
const isoTimestamp = { name: 'timestamptz', parse: (value: string) => new Date(value).toISOString() };

export async function createDatabasePool(url: string, options: { maxPoolSize?: number } = {}): Promise<DatabasePool> {
  return createPool(url, {
    interceptors: [resultParser],
    typeParsers: [createBigintTypeParser(), createDateTypeParser(), createNumericTypeParser(), isoTimestamp],
    maxPoolSize: options.maxPoolSize ?? 10,
    // Nothing we run leaves session state behind, so skip the DISCARD ALL round trip on every release.
    resetConnection: async () => {},
    statementTimeout: 30_000,
  });
}
