import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DatabasePool } from 'slonik';
import type { AuditScope } from '../../../../db/events/audit-logs/queries.ts';
import { callerOf, requires } from '../../../plugins/auth.ts';
import { AuditLogEntry, AuditLogsPage, AuditLogsQuery, OrganizationAuditParams, TenantAuditParams } from './schemas.ts';
import { errorResponses } from '../../../common/schemas.ts';
import { createAuditLogService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Audit'];
const NDJSON = 'application/x-ndjson';

const description =
  'Newest first, one page at a time with `cursor`. With `Accept: application/x-ndjson` the response is instead ' +
  'the whole filtered log (from `cursor` on, `limit` ignored) streamed as newline-delimited JSON, one entry per line, for export.';

const ok = {
  description: 'A page of entries, or with Accept: application/x-ndjson every matching entry, one JSON object per line',
  content: { 'application/json': { schema: AuditLogsPage }, [NDJSON]: { schema: AuditLogEntry } },
};

const wantsNdjson = (request: FastifyRequest) => (request.headers.accept ?? '').toLowerCase().includes(NDJSON);

async function* lines(entries: AsyncIterable<unknown>) {
  for await (const entry of entries) yield `${JSON.stringify(entry)}\n`;
}

export function auditLogRoutes(app: App, deps: { pool: DatabasePool }) {
  const audit = createAuditLogService(deps.pool);
  const serve = async (request: FastifyRequest, reply: FastifyReply, target: AuditScope, query: AuditLogsQuery) => {
    if (!wantsNdjson(request)) return audit.list(target, query);
    return reply.type(NDJSON).send(Readable.from(lines(audit.export(target, query))));
  };

  app.get('/v1/tenants/:tenantId/audit-logs', {
    schema: {
      tags,
      operationId: 'listTenantAuditLogs',
      summary: 'List the audit log of a tenant',
      description,
      security: requires('audit:read'),
      params: TenantAuditParams,
      querystring: AuditLogsQuery,
      response: { 200: ok, ...errorResponses(404) },
    },
    handler: (request, reply) => serve(request, reply, { tenantId: callerOf(request, 'tenant').scope.tenant.id }, request.query),
  });

  app.get('/v1/organizations/:organizationId/audit-logs', {
    schema: {
      tags,
      operationId: 'listOrganizationAuditLogs',
      summary: 'List the audit log of an organization and of its tenants',
      description,
      security: requires('audit:read'),
      params: OrganizationAuditParams,
      querystring: AuditLogsQuery,
      response: { 200: ok, ...errorResponses(404) },
    },
    handler: (request, reply) => serve(request, reply, { organizationId: callerOf(request, 'organization').scope.organizationId }, request.query),
  });
}
