// POST /.search (RFC 7644 §3.4.3): a SearchRequest body instead of query parameters, on each resource endpoint and at
// the root of the mount, where it covers every resource type (in the mount's order, paged across them).
import { z } from 'zod';
import { invalidSyntax, invalidValue, ScimError } from '../../../../lib/scim/errors.ts';
import { listResponse, parsePaging } from '../../../../lib/scim/list.ts';
import { project } from '../../../../lib/scim/projection.ts';
import type { Resource } from '../../../../lib/scim/values.ts';
import type { ResourceDescriptor, ScimContext } from './descriptor.ts';
import { listQuery, MAX_RESULTS, projectionOf, scimContext, type ListQuery } from './requests.ts';
import { requiresProvisioningToken } from '../../../plugins/environment-secret.ts';
import type { App } from '../../../types.ts';
import { SCIM_MEDIA_TYPE, scimErrors } from './errors.ts';
import type { ScimMount } from './descriptor.ts';

export const SEARCH_REQUEST = 'urn:ietf:params:scim:api:messages:2.0:SearchRequest';

export const SearchBody = z.looseObject({}).meta({
  id: 'ScimSearchRequest',
  description: 'A SearchRequest: schemas, filter, attributes, excludedAttributes (lists), sortBy, sortOrder, startIndex, count (integers)',
});

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const field = (o: Record<string, unknown>, name: string) => Object.entries(o).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];

/** The list parameters of a SearchRequest, as the query string would carry them; 400 for anything else. */
export function searchQuery(body: unknown): ListQuery {
  if (!isObject(body)) throw invalidSyntax('A SearchRequest is a JSON object.');
  const schemas = field(body, 'schemas');
  if (!Array.isArray(schemas) || !schemas.some((s) => typeof s === 'string' && s.toLowerCase() === SEARCH_REQUEST.toLowerCase()))
    throw invalidSyntax(`A SearchRequest has schemas ["${SEARCH_REQUEST}"].`);
  const text = (name: string) => {
    const value = field(body, name);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw invalidValue(`${name} must be a string.`);
    return value;
  };
  const names = (name: string) => {
    const value = field(body, name);
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw invalidValue(`${name} must be a list of attribute names.`);
    return value.join(',');
  };
  const integer = (name: string) => {
    const value = field(body, name);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value)) throw invalidValue(`${name} must be an integer.`);
    return String(value);
  };
  return {
    filter: text('filter'),
    attributes: names('attributes'),
    excludedAttributes: names('excludedAttributes'),
    sortBy: text('sortBy'),
    sortOrder: text('sortOrder'),
    startIndex: integer('startIndex'),
    count: integer('count'),
  };
}

/** One resource type's ListResponse for list parameters (GET with a query string, or a SearchRequest). */
export async function listResources(mount: ScimMount, d: ResourceDescriptor, ctx: ScimContext, query: ListQuery) {
  const { sql, paging } = listQuery(d, ctx, query, mount.sort ?? true);
  const projection = projectionOf(d, query);
  const { total, resources } = await d.list(ctx, sql, projection);
  return listResponse(
    resources.map((r) => project(r, projection)),
    total,
    paging,
  );
}

/**
 * A search at the root: each resource type the filter can apply to (a type lacking an attribute the filter or sortBy
 * names has no match), concatenated in the mount's order and paged across.
 */
export async function searchAll(mount: ScimMount, ctx: ScimContext, query: ListQuery) {
  const paging = parsePaging(query, MAX_RESULTS);
  const unpaged = { ...query, startIndex: undefined, count: undefined };
  const plans: { d: ResourceDescriptor; sql: ReturnType<typeof listQuery>['sql'] }[] = [];
  let refusal: ScimError | undefined;
  for (const d of mount.descriptors) {
    try {
      plans.push({ d, sql: listQuery(d, ctx, unpaged, mount.sort ?? true).sql });
    } catch (error) {
      if (!(error instanceof ScimError)) throw error;
      refusal ??= error;
    }
  }
  if (plans.length === 0 && refusal) throw refusal;
  let skip = paging.startIndex - 1;
  let left = paging.count;
  let total = 0;
  const resources: Resource[] = [];
  for (const { d, sql } of plans) {
    const projection = projectionOf(d, query);
    const count = (await d.list(ctx, { ...sql, offset: 0, limit: 0 }, projection)).total;
    total += count;
    if (skip >= count) {
      skip -= count;
      continue;
    }
    const take = Math.min(left, count - skip);
    if (take > 0) {
      const page = await d.list(ctx, { ...sql, offset: skip, limit: take }, projection);
      resources.push(...page.resources.map((r) => project(r, projection)));
    }
    skip = 0;
    left -= take;
  }
  return listResponse(resources, total, paging);
}

/** POST /.search at the root of the mount. */
export function rootSearchRoute(app: App, mount: ScimMount, ListResponse: z.ZodType) {
  app.post('/.search', {
    config: { provisioning: mount.kind },
    schema: {
      tags: [mount.tag],
      security: requiresProvisioningToken,
      operationId: `${mount.operationPrefix}Search`,
      summary: 'Search every resource type with a SearchRequest',
      description: `A SearchRequest (RFC 7644 §3.4.3) over ${mount.descriptors.map((d) => d.endpoint.slice(1)).join(' and ')}, listed in that order and paged across them; a type lacking an attribute the filter or sortBy names has no match.`,
      body: SearchBody,
      response: { 200: ListResponse, ...scimErrors(400) },
    },
    handler: async (request, reply) => reply.type(SCIM_MEDIA_TYPE).send(await searchAll(mount, scimContext(request, mount.prefix), searchQuery(request.body))),
  });
}
