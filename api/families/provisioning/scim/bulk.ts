// Bulk (RFC 7644 §3.7): operations in order, each answered on its own; `bulkId:<id>` in a later operation's path
// or data stands for the id of the resource an earlier one created. `failOnErrors` stops after that many errors.
import type { FastifyError } from 'fastify';
import { z } from 'zod';
import { errorBody, invalidSyntax, invalidValue, ScimError } from '../../../../lib/scim/errors.ts';
import { applyPatch, patchOperations } from '../../../../lib/scim/patch.ts';
import { URN } from '../../../../lib/scim/schema.ts';
import { canonicalResource, type Resource } from '../../../../lib/scim/values.ts';
import { requiresProvisioningToken } from '../../../plugins/environment-secret.ts';
import type { App } from '../../../types.ts';
import type { ResourceDescriptor, ScimContext } from './descriptor.ts';
import { BULK_MAX_OPERATIONS } from './discovery.ts';
import { classify, SCIM_MEDIA_TYPE, scimErrors } from './errors.ts';
import type { ScimMount } from './descriptor.ts';
import { scimContext } from './requests.ts';
import { replacement } from './routes.ts';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const field = (o: Record<string, unknown>, name: string) => Object.entries(o).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];

/** `value` with every `bulkId:<id>` string replaced by the id it stands for; 400 for one not created yet. */
function resolveBulkIds(value: unknown, ids: Map<string, string>): unknown {
  if (typeof value === 'string') {
    return value.replace(/bulkId:([\w.-]+)/g, (_, id: string) => {
      const resolved = ids.get(id);
      if (!resolved) throw invalidValue(`bulkId:${id} names no resource created by an earlier operation.`);
      return resolved;
    });
  }
  if (Array.isArray(value)) return value.map((v) => resolveBulkIds(v, ids));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveBulkIds(v, ids)]));
  return value;
}

interface Outcome {
  status: number;
  resource?: Resource;
}

async function perform(mount: ScimMount, ctx: ScimContext, method: string, path: string, data: unknown, version: string | undefined): Promise<Outcome> {
  const [, endpoint, id, extra] = path.split('/');
  const d: ResourceDescriptor | undefined = mount.descriptors.find((x) => x.endpoint.toLowerCase() === `/${endpoint ?? ''}`.toLowerCase());
  if (!d || extra !== undefined || (method === 'POST') !== (id === undefined))
    throw invalidValue(`${method} ${path} is not a bulk operation this service performs.`);
  const body = () => {
    if (!isObject(data)) throw invalidSyntax(`${method} ${path} needs a data object.`);
    return data;
  };
  switch (method) {
    case 'POST':
      return { status: 201, resource: await d.create(ctx, canonicalResource(d.schemas, body())) };
    case 'PUT':
      return { status: 200, resource: await d.update(ctx, id!, replacement(canonicalResource(d.schemas, body())), version) };
    case 'PATCH': {
      const operations = patchOperations(body());
      return { status: 200, resource: await d.update(ctx, id!, (current) => applyPatch(d.schemas, current, operations), version) };
    }
    case 'DELETE':
      await d.remove(ctx, id!, version);
      return { status: 204 };
    default:
      throw invalidValue(`${method} is not a bulk method: POST, PUT, PATCH or DELETE.`);
  }
}

export function bulkRoute(app: App, mount: ScimMount) {
  app.post('/Bulk', {
    config: { provisioning: mount.kind },
    schema: {
      tags: [mount.tag],
      security: requiresProvisioningToken,
      operationId: `${mount.operationPrefix}Bulk`,
      summary: 'Perform several operations in one request',
      description: `A BulkRequest of at most ${BULK_MAX_OPERATIONS} operations (more: 400 tooMany; a body over 1 MiB: 413), performed in order; \`bulkId:<id>\` refers to a resource an earlier operation created. Each operation has its own status; \`failOnErrors\` stops after that many errors.`,
      body: z.looseObject({}).meta({ id: 'ScimBulkRequest', description: 'A SCIM BulkRequest; lenient by the SCIM spec' }),
      response: {
        200: z.looseObject({ schemas: z.array(z.string()), Operations: z.array(z.looseObject({})) }).meta({ id: 'ScimBulkResponse' }),
        ...scimErrors(400, 413),
      },
    },
    handler: async (request, reply) => {
      const operations = field(request.body, 'Operations');
      if (!Array.isArray(operations)) throw invalidSyntax('A BulkRequest has an Operations list.');
      if (operations.length > BULK_MAX_OPERATIONS) throw new ScimError(400, `A BulkRequest takes at most ${BULK_MAX_OPERATIONS} operations.`, 'tooMany');
      const failOnErrors = field(request.body, 'failOnErrors');
      const limit = typeof failOnErrors === 'number' && failOnErrors > 0 ? failOnErrors : Infinity;
      const ctx = scimContext(request, mount.prefix);
      const ids = new Map<string, string>();
      const results: Record<string, unknown>[] = [];
      let errors = 0;
      for (const raw of operations) {
        if (errors >= limit) break;
        const op = isObject(raw) ? raw : {};
        const method = String(field(op, 'method') ?? '').toUpperCase();
        const bulkId = typeof field(op, 'bulkId') === 'string' ? (field(op, 'bulkId') as string) : undefined;
        const version = typeof field(op, 'version') === 'string' ? (field(op, 'version') as string) : undefined;
        const entry: Record<string, unknown> = { method, ...(bulkId && { bulkId }) };
        try {
          const path = resolveBulkIds(field(op, 'path'), ids);
          if (typeof path !== 'string') throw invalidSyntax('Each bulk operation has a path.');
          const outcome = await perform(mount, ctx, method, path, resolveBulkIds(field(op, 'data'), ids), version);
          const meta = outcome.resource?.meta as { location?: string; version?: string } | undefined;
          if (bulkId && method === 'POST' && outcome.resource) ids.set(bulkId, outcome.resource.id as string);
          results.push({ ...entry, ...(meta && { location: meta.location, version: meta.version }), status: String(outcome.status) });
        } catch (error) {
          // An unexpected failure is this operation's 500: the operations before it are done and reported.
          const failure = classify(error as FastifyError);
          if (failure.status >= 500) request.log.error({ err: error }, 'bulk operation failed');
          errors++;
          results.push({ ...entry, status: String(failure.status), response: errorBody(failure.status, failure.message, failure.scimType) });
        }
      }
      return reply.type(SCIM_MEDIA_TYPE).send({ schemas: [URN.bulkResponse], Operations: results });
    },
  });
}
