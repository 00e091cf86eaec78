// What the generic SCIM routes read from a request: the provisioning context, list parameters, If-Match.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { compileFilter, sortExpression, type ScalarColumn } from '../../../../db/provisioning/scim/filter-sql.ts';
import type { ScimListQuery } from '../../../../db/provisioning/scim/users.ts';
import { parseFilter } from '../../../../lib/scim/filter.ts';
import { invalidValue } from '../../../../lib/scim/errors.ts';
import { parsePaging, type Paging } from '../../../../lib/scim/list.ts';
import { parseProjection, type Projection } from '../../../../lib/scim/projection.ts';
import { environmentSecretOf } from '../../../plugins/environment-secret.ts';
import type { ResourceDescriptor, ScimContext } from './descriptor.ts';

export const MAX_RESULTS = 200;

/** Query parameters are lenient: clients add their own (Entra's `aadOptscim062020` flag). */
export const ListQuery = z.looseObject({
  filter: z.string().optional(),
  startIndex: z.string().optional().describe('1-based index of the first result'),
  count: z.string().optional().describe(`Results per page, at most ${MAX_RESULTS}`),
  sortBy: z.string().optional(),
  sortOrder: z.string().optional().describe('ascending (default) or descending'),
  attributes: z.string().optional(),
  excludedAttributes: z.string().optional(),
});
export type ListQuery = z.infer<typeof ListQuery>;
export const ProjectionQuery = ListQuery.pick({ attributes: true, excludedAttributes: true });

export function scimContext(request: FastifyRequest, prefix: string): ScimContext {
  const token = environmentSecretOf(request);
  return {
    environmentId: token.environmentId,
    tenantId: token.tenantId,
    tokenId: token.secretId,
    origin: { ip: request.ip, userAgent: request.headers['user-agent'] ?? null, requestId: request.id },
    baseUrl: `${request.protocol}://${request.host}${prefix}`,
  };
}

export const projectionOf = (descriptor: ResourceDescriptor, query: { attributes?: string | undefined; excludedAttributes?: string | undefined }): Projection =>
  parseProjection(descriptor.schemas, query.attributes, query.excludedAttributes);

export function listQuery(descriptor: ResourceDescriptor, ctx: ScimContext, query: ListQuery, sortable = true): { sql: ScimListQuery; paging: Paging } {
  const paging = parsePaging(query, MAX_RESULTS);
  const lookup = descriptor.column(ctx);
  const where = query.filter?.trim() ? compileFilter(parseFilter(query.filter), lookup) : undefined;
  const sortOrder = query.sortOrder?.toLowerCase();
  if (sortOrder !== undefined && sortOrder !== 'ascending' && sortOrder !== 'descending') throw invalidValue('sortOrder must be ascending or descending.');
  if (query.sortBy && !sortable) throw invalidValue('sortBy is not supported here: results come oldest first.');
  const sort = query.sortBy ? lookup(query.sortBy.toLowerCase()) : undefined;
  if (query.sortBy && sort?.kind !== 'scalar') throw invalidValue(`sortBy ${query.sortBy} is not an attribute that can be sorted on.`);
  return {
    sql: {
      where,
      orderBy: sort ? sortExpression(sort as ScalarColumn) : undefined,
      descending: sortOrder === 'descending',
      offset: paging.startIndex - 1,
      limit: paging.count,
    },
    paging,
  };
}

export const ifMatch = (request: FastifyRequest) => {
  const value = request.headers['if-match'];
  return Array.isArray(value) ? value.join(',') : value;
};

/** Whether If-None-Match names `version` (weak comparison, RFC 9110 §13.1.2; `*` names any). */
export function notModified(header: string | string[] | undefined, version: string) {
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value) return false;
  const tags = value.split(',').map((v) => v.trim().replace(/^W\//, ''));
  return tags.includes('*') || tags.includes(version.replace(/^W\//, ''));
}
