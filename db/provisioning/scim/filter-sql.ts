// A SCIM filter (lib/scim/filter.ts) as a SQL condition, over the columns a resource maps each attribute path to.
// Strings compare case-insensitively unless the attribute is caseExact; an equality on a multi-valued attribute may
// add an indexed condition (`narrow`) beside its EXISTS, so `emails[type eq "work"].value eq "…"` uses an index.
import { sql, type FragmentSqlToken } from 'slonik';
import type { AttrExp, Filter } from 'scim2-parse-filter';
import { ScimError } from '../../../lib/scim/errors.ts';

export interface ScalarColumn {
  kind: 'scalar';
  /** A text, boolean or timestamptz expression. */
  expr: FragmentSqlToken;
  type: 'string' | 'boolean' | 'dateTime';
  caseExact: boolean;
}

export interface MultiColumn {
  kind: 'multi';
  /** EXISTS over the attribute's items where `condition` holds. */
  exists: (condition: FragmentSqlToken) => FragmentSqlToken;
  sub: (name: string) => ScalarColumn | undefined;
  /** An indexed condition implied by `sub eq value`, added beside the EXISTS. */
  narrow?: (sub: string, value: string) => FragmentSqlToken | undefined;
}

/** The column of a lower-cased attribute path (without the core schema URN), or undefined when unknown. */
export type ColumnLookup = (path: string) => ScalarColumn | MultiColumn | undefined;

const isAttrExp = (f: Filter): f is AttrExp => f.op !== 'and' && f.op !== 'or' && f.op !== 'not' && f.op !== '[]';
const invalid = (detail: string) => new ScimError(400, detail, 'invalidFilter');
const like = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

function comparison(column: ScalarColumn, op: string, value: unknown, path: string): FragmentSqlToken {
  const { expr } = column;
  if (op === 'pr') return column.type === 'string' ? sql.fragment`(${expr} IS NOT NULL AND ${expr} <> '')` : sql.fragment`${expr} IS NOT NULL`;
  if (value === null) {
    if (op === 'eq') return sql.fragment`${expr} IS NULL`;
    if (op === 'ne') return sql.fragment`${expr} IS NOT NULL`;
    throw invalid(`${path} ${op} null is not a comparison.`);
  }
  if (column.type === 'boolean') {
    if (typeof value !== 'boolean' || (op !== 'eq' && op !== 'ne')) throw invalid(`${path} is a boolean: compare it with eq or ne and true or false.`);
    return op === 'eq' ? sql.fragment`${expr} = ${value}` : sql.fragment`${expr} IS DISTINCT FROM ${value}`;
  }
  if (column.type === 'dateTime') {
    if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) throw invalid(`${path} is a dateTime: compare it with an ISO 8601 string.`);
    const v = sql.fragment`${value}::timestamptz`;
    const ops: Record<string, FragmentSqlToken> = {
      eq: sql.fragment`${expr} = ${v}`,
      ne: sql.fragment`${expr} <> ${v}`,
      gt: sql.fragment`${expr} > ${v}`,
      ge: sql.fragment`${expr} >= ${v}`,
      lt: sql.fragment`${expr} < ${v}`,
      le: sql.fragment`${expr} <= ${v}`,
    };
    if (!ops[op]) throw invalid(`${path} is a dateTime: ${op} does not apply.`);
    return ops[op];
  }
  const text = typeof value === 'string' ? value : String(value);
  const [e, v] = column.caseExact ? [expr, sql.fragment`${text}::text`] : [sql.fragment`lower(${expr})`, sql.fragment`lower(${text})`];
  switch (op) {
    case 'eq':
      return sql.fragment`${e} = ${v}`;
    case 'ne':
      return sql.fragment`(${expr} IS NULL OR ${e} <> ${v})`;
    case 'co':
      return sql.fragment`${e} LIKE '%' || ${column.caseExact ? like(text) : like(text.toLowerCase())} || '%'`;
    case 'sw':
      return sql.fragment`${e} LIKE ${column.caseExact ? like(text) : like(text.toLowerCase())} || '%'`;
    case 'ew':
      return sql.fragment`${e} LIKE '%' || ${column.caseExact ? like(text) : like(text.toLowerCase())}`;
    case 'gt':
      return sql.fragment`${e} > ${v}`;
    case 'ge':
      return sql.fragment`${e} >= ${v}`;
    case 'lt':
      return sql.fragment`${e} < ${v}`;
    default:
      return sql.fragment`${e} <= ${v}`;
  }
}

export function compileFilter(filter: Filter, lookup: ColumnLookup): FragmentSqlToken {
  const column = (path: string) => {
    const found = lookup(path.toLowerCase());
    if (!found) throw invalid(`The filter names ${path}, which cannot be filtered on.`);
    return found;
  };
  /** `emails.value` → the multi column `emails` and its sub `value`; a bare multi-valued name means its value. */
  const split = (path: string): { multi: MultiColumn; sub: string } | undefined => {
    const whole = lookup(path.toLowerCase());
    if (whole?.kind === 'multi') return { multi: whole, sub: 'value' };
    const dot = path.lastIndexOf('.');
    const parent = dot > 0 ? lookup(path.slice(0, dot).toLowerCase()) : undefined;
    return parent?.kind === 'multi' ? { multi: parent, sub: path.slice(dot + 1).toLowerCase() } : undefined;
  };
  const within = (multi: MultiColumn, f: Filter): FragmentSqlToken => {
    if (f.op === 'and' || f.op === 'or')
      return sql.fragment`(${sql.join(
        f.filters.map((g) => within(multi, g)),
        f.op === 'and' ? sql.fragment` AND ` : sql.fragment` OR `,
      )})`;
    if (f.op === 'not') return sql.fragment`NOT (${within(multi, f.filter)})`;
    if (!isAttrExp(f)) throw invalid('A value filter cannot nest another.');
    const sub = multi.sub(f.attrPath.toLowerCase());
    if (!sub) throw invalid(`The value filter names ${f.attrPath}, which cannot be filtered on.`);
    return comparison(sub, f.op, 'compValue' in f ? f.compValue : undefined, f.attrPath);
  };
  const multiValued = (multi: MultiColumn, condition: Filter, sub: string, equal: unknown) => {
    const narrow = typeof equal === 'string' ? multi.narrow?.(sub, equal) : undefined;
    const exists = multi.exists(within(multi, condition));
    return narrow ? sql.fragment`(${narrow} AND ${exists})` : exists;
  };
  const compile = (f: Filter): FragmentSqlToken => {
    switch (f.op) {
      case 'and': {
        // The parser reads `emails[type eq "work"].value eq "x"` as `emails[type eq "work"] and emails.value eq "x"`:
        // one item must satisfy both.
        const [first, second, ...rest] = f.filters;
        const attr = second && isAttrExp(second) ? second : undefined;
        if (first?.op === '[]' && attr && attr.attrPath.toLowerCase().startsWith(`${first.attrPath.toLowerCase()}.`)) {
          const multi = column(first.attrPath);
          if (multi.kind !== 'multi') throw invalid(`${first.attrPath} is not multi-valued.`);
          const sub = attr.attrPath.slice(first.attrPath.length + 1);
          const merged: Filter = { op: 'and', filters: [first.valFilter, { ...attr, attrPath: sub }] };
          const one = multiValued(multi, merged, sub.toLowerCase(), attr.op === 'eq' ? attr.compValue : undefined);
          return rest.length ? sql.fragment`(${one} AND ${compile({ op: 'and', filters: rest })})` : one;
        }
        return sql.fragment`(${sql.join(f.filters.map(compile), sql.fragment` AND `)})`;
      }
      case 'or':
        return sql.fragment`(${sql.join(f.filters.map(compile), sql.fragment` OR `)})`;
      case 'not':
        return sql.fragment`NOT (${compile(f.filter)})`;
      case '[]': {
        const multi = column(f.attrPath);
        if (multi.kind !== 'multi') throw invalid(`${f.attrPath} is not multi-valued.`);
        return multi.exists(within(multi, f.valFilter));
      }
      default: {
        const value = f.op === 'pr' ? undefined : f.compValue;
        const multi = split(f.attrPath);
        if (multi) return multiValued(multi.multi, { ...f, attrPath: multi.sub } as Filter, multi.sub, f.op === 'eq' ? value : undefined);
        const scalar = column(f.attrPath);
        if (scalar.kind !== 'scalar') throw invalid(`${f.attrPath} cannot be compared.`);
        return comparison(scalar, f.op, value, f.attrPath);
      }
    }
  };
  return compile(filter);
}

/** What `sortBy` orders by (RFC 7644 §3.4.2.3): strings by code point, ignoring case unless the attribute is caseExact. */
export function sortExpression(column: ScalarColumn): FragmentSqlToken {
  if (column.type !== 'string') return column.expr;
  return column.caseExact ? sql.fragment`(${column.expr}) COLLATE "C"` : sql.fragment`lower(${column.expr}) COLLATE "C"`;
}
