// Scope in every query: a statement that reads or changes rows of an environment, tenant or organization names that
// scope in its SQL (query factories are bound to it), or its function says why not with an `unscoped:` comment.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { unscopedStatements } from '../helpers/sql-scope.ts';

const root = path.resolve(import.meta.dirname, '../..');

describe('query scope', () => {
  const violations = unscopedStatements(root);

  it('every statement on a scoped table names its scope or says why not', () => {
    expect(violations.map((v) => `${v.file}:${v.line} ${v.fn} [${v.tables.join(', ')}] ${v.statement}`)).toEqual([]);
  });

  it('catches a statement that forgets its scope', () => {
    const fixture = path.join(import.meta.dirname, '../fixtures/query-scope');
    expect(unscopedStatements(fixture).map((v) => v.fn)).toEqual(['forgetsScope']);
  });
});
