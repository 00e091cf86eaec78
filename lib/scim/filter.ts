// SCIM filters (RFC 7644 §3.4.2.2): parsed by scim2-parse-filter (the whole grammar: attribute paths with schema
// URNs, comparisons, `pr`, `and`/`or`/`not`, grouping, value filters), evaluated in memory on the items of a
// multi-valued attribute (PATCH value paths), and compiled to SQL elsewhere (db/provisioning/scim/filter-sql.ts).
import { parse, type Filter } from 'scim2-parse-filter';
import { ScimError } from './errors.ts';

export type { Filter };

const MAX_FILTER_LENGTH = 4096;

/** The filter of a query or a value path; 400 invalidFilter for anything outside the grammar. */
export function parseFilter(text: string): Filter {
  if (text.length > MAX_FILTER_LENGTH) throw new ScimError(400, `The filter is longer than ${MAX_FILTER_LENGTH} characters.`, 'invalidFilter');
  try {
    return parse(text);
  } catch {
    throw new ScimError(400, `The filter ${JSON.stringify(text)} is not a valid SCIM filter (RFC 7644 §3.4.2.2).`, 'invalidFilter');
  }
}

const lowerKeys = (item: Record<string, unknown>) => new Map(Object.entries(item).map(([k, v]) => [k.toLowerCase(), v]));

function compare(op: string, actual: unknown, expected: unknown, caseExact: boolean): boolean {
  if (op === 'pr') return actual !== undefined && actual !== null && actual !== '';
  if (actual === undefined || actual === null) return op === 'ne' ? expected !== null : op === 'eq' && expected === null;
  const fold = (v: unknown) => (typeof v === 'string' && !caseExact ? v.toLowerCase() : v);
  const [a, e] = [fold(typeof actual === 'string' || typeof actual === 'boolean' || typeof actual === 'number' ? actual : String(actual)), fold(expected)];
  switch (op) {
    case 'eq':
      return a === e;
    case 'ne':
      return a !== e;
    case 'co':
      return typeof a === 'string' && typeof e === 'string' && a.includes(e);
    case 'sw':
      return typeof a === 'string' && typeof e === 'string' && a.startsWith(e);
    case 'ew':
      return typeof a === 'string' && typeof e === 'string' && a.endsWith(e);
    case 'gt':
      return (a as number) > (e as number);
    case 'ge':
      return (a as number) >= (e as number);
    case 'lt':
      return (a as number) < (e as number);
    case 'le':
      return (a as number) <= (e as number);
    default:
      return false;
  }
}

/**
 * Whether an item of a multi-valued attribute (`{ value, type, primary }`) matches a value filter over its
 * sub-attributes; string comparisons ignore case unless the sub-attribute is in `caseExact`.
 */
export function matchesItem(filter: Filter, item: unknown, caseExact: ReadonlySet<string> = new Set()): boolean {
  const fields = item && typeof item === 'object' ? lowerKeys(item as Record<string, unknown>) : new Map([['value', item]]);
  const test = (f: Filter): boolean => {
    switch (f.op) {
      case 'and':
        return f.filters.every(test);
      case 'or':
        return f.filters.some(test);
      case 'not':
        return !test(f.filter);
      case '[]':
        return false;
      case 'pr':
        return compare('pr', fields.get(f.attrPath.toLowerCase()), undefined, false);
      default: {
        const name = f.attrPath.toLowerCase();
        return compare(f.op, fields.get(name), f.compValue, caseExact.has(name));
      }
    }
  };
  return test(filter);
}

/** The `sub eq value` comparisons a value filter requires (`type eq "work"`): what an item created on absence gets. */
export function requiredEqualities(filter: Filter): Record<string, unknown> | undefined {
  if (filter.op === 'eq') return { [filter.attrPath]: filter.compValue };
  if (filter.op !== 'and') return undefined;
  const parts = filter.filters.map(requiredEqualities);
  return parts.every((p) => p !== undefined) ? Object.assign({}, ...parts) : undefined;
}
