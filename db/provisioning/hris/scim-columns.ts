// The HRIS surface's filters (SCIM grammar, db/provisioning/scim/filter-sql.ts) over the filterable columns of
// employees and departments. Ids and dates compare as text (dates as YYYY-MM-DD, so order is chronological).
import { sql, type FragmentSqlToken } from 'slonik';
import type { ColumnLookup, ScalarColumn } from '../scim/filter-sql.ts';
import { FILTERABLE_DEPARTMENT_COLUMNS } from './departments.ts';
import { FILTERABLE_EMPLOYEE_COLUMNS } from './employees.ts';

const BOOLEANS = new Set(['active']);
const TIMES = new Set(['meta.created', 'meta.lastModified']);
const DATES = new Set(['startDate', 'terminationDate']);
const EXACT = new Set(['externalId', 'employmentStatus', 'employmentType', 'type']);

function lookup(columns: Record<string, FragmentSqlToken>): ColumnLookup {
  const byPath = new Map<string, ScalarColumn>(
    Object.entries(columns).map(([path, expr]) => {
      if (BOOLEANS.has(path)) return [path.toLowerCase(), { kind: 'scalar', expr, type: 'boolean', caseExact: true }];
      if (TIMES.has(path)) return [path.toLowerCase(), { kind: 'scalar', expr, type: 'dateTime', caseExact: true }];
      const text = DATES.has(path) ? sql.fragment`to_char(${expr}, 'YYYY-MM-DD')` : sql.fragment`(${expr})::text`;
      return [path.toLowerCase(), { kind: 'scalar', expr: text, type: 'string', caseExact: EXACT.has(path) || DATES.has(path) }];
    }),
  );
  return (path) => byPath.get(path);
}

export const employeeColumn = lookup(FILTERABLE_EMPLOYEE_COLUMNS);
export const departmentColumn = lookup(FILTERABLE_DEPARTMENT_COLUMNS);
