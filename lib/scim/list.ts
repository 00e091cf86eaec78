// ListResponse (RFC 7644 §3.4.2) and the paging parameters, as integers: startIndex is 1-based (below 1 means 1),
// count is at most `maxResults` (negative means 0).
import { invalidValue } from './errors.ts';
import { URN } from './schema.ts';
import type { Resource } from './values.ts';

export interface Paging {
  startIndex: number;
  count: number;
}

const integer = (name: string, value: string | undefined, fallback: number) => {
  if (value === undefined || value === '') return fallback;
  if (!/^-?\d{1,15}$/.test(value.trim())) throw invalidValue(`${name} must be an integer.`);
  return Number(value.trim());
};

export function parsePaging(query: { startIndex?: string | undefined; count?: string | undefined }, maxResults: number): Paging {
  return {
    startIndex: Math.max(1, integer('startIndex', query.startIndex, 1)),
    count: Math.min(maxResults, Math.max(0, integer('count', query.count, maxResults))),
  };
}

export const listResponse = (resources: Resource[], totalResults: number, paging: Paging) => ({
  schemas: [URN.listResponse],
  totalResults,
  startIndex: paging.startIndex,
  itemsPerPage: resources.length,
  Resources: resources,
});
