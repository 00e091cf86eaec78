// The routes of one SCIM resource type (list, get, create, replace, patch, delete), driven by its descriptor.
import { z } from 'zod';
import { applyPatch, patchOperations } from '../../../../lib/scim/patch.ts';
import { project } from '../../../../lib/scim/projection.ts';
import { canonicalResource, type Resource } from '../../../../lib/scim/values.ts';
import { requiresProvisioningToken } from '../../../plugins/environment-secret.ts';
import type { App } from '../../../types.ts';
import type { ResourceDescriptor } from './descriptor.ts';
import { SCIM_MEDIA_TYPE, scimErrors } from './errors.ts';
import { ifMatch, ListQuery, notModified, ProjectionQuery, projectionOf, scimContext } from './requests.ts';
import { listResources, SearchBody, searchQuery } from './search.ts';
import type { ScimMount } from './descriptor.ts';

export const ScimResource = z
  .record(z.string(), z.unknown())
  .meta({ id: 'ScimResource', description: 'A SCIM resource: `schemas`, `id`, its attributes and `meta`' });
const ScimBody = z.looseObject({}).meta({ id: 'ScimRequest', description: 'A SCIM message; lenient by the SCIM spec (unknown attributes are ignored)' });
export const ListResponse = z
  .looseObject({
    schemas: z.array(z.string()),
    totalResults: z.number().int(),
    startIndex: z.number().int(),
    itemsPerPage: z.number().int(),
    Resources: z.array(ScimResource),
  })
  .meta({ id: 'ScimListResponse' });
const Id = z.object({ id: z.string().max(200) });

const versionOf = (resource: Resource) => (resource.meta as { version: string }).version;

/** PUT: the body's writable attributes replace the resource's; an absent `active` or `members` is kept. */
export const replacement = (body: Resource) => (current: Resource) => {
  const keep = ['active', 'members'].filter((k) => body[k] === undefined && current[k] !== undefined);
  return { ...body, ...Object.fromEntries(keep.map((k) => [k, current[k]])) };
};

export function resourceRoutes(app: App, mount: ScimMount, d: ResourceDescriptor) {
  const base = d.endpoint;
  const plural = d.endpoint.slice(1);
  const common = { tags: [mount.tag], security: requiresProvisioningToken };
  const config = { provisioning: mount.kind };
  const ctxOf = (request: Parameters<typeof scimContext>[0]) => scimContext(request, mount.prefix);

  app.get(base, {
    config,
    schema: {
      ...common,
      operationId: `${mount.operationPrefix}List${plural}`,
      summary: `List or filter ${plural}`,
      description: `A ListResponse of ${plural}: \`filter\` (RFC 7644 §3.4.2.2), \`startIndex\`/\`count\` paging (1-based, at most 200), \`sortBy\`/\`sortOrder\`, \`attributes\`/\`excludedAttributes\`. Nothing matching is 200 with totalResults 0.`,
      querystring: ListQuery,
      response: { 200: ListResponse, ...scimErrors(400) },
    },
    handler: async (request, reply) => reply.type(SCIM_MEDIA_TYPE).send(await listResources(mount, d, ctxOf(request), request.query)),
  });

  app.post(`${base}/.search`, {
    config,
    schema: {
      ...common,
      operationId: `${mount.operationPrefix}Search${plural}`,
      summary: `Search ${plural} with a SearchRequest`,
      description: `Like the list, with the parameters in a SearchRequest body (RFC 7644 §3.4.3): \`filter\`, \`attributes\`/\`excludedAttributes\` as lists, \`sortBy\`/\`sortOrder\`, \`startIndex\`/\`count\` as integers.`,
      body: SearchBody,
      response: { 200: ListResponse, ...scimErrors(400) },
    },
    handler: async (request, reply) => reply.type(SCIM_MEDIA_TYPE).send(await listResources(mount, d, ctxOf(request), searchQuery(request.body))),
  });

  app.post(base, {
    config,
    schema: {
      ...common,
      operationId: `${mount.operationPrefix}Create${d.name}`,
      summary: `Create a ${d.name}`,
      description: `Creates a ${d.name} from a SCIM body (application/scim+json or application/json). 409 uniqueness when a unique attribute is taken.`,
      body: ScimBody,
      response: { 201: ScimResource, ...scimErrors(400, 409) },
    },
    handler: async (request, reply) => {
      const ctx = ctxOf(request);
      const created = await d.create(ctx, canonicalResource(d.schemas, request.body));
      const location = (created.meta as { location: string }).location;
      return reply.status(201).type(SCIM_MEDIA_TYPE).header('location', location).header('etag', versionOf(created)).send(created);
    },
  });

  app.get(`${base}/:id`, {
    config,
    schema: {
      ...common,
      operationId: `${mount.operationPrefix}Get${d.name}`,
      summary: `Get a ${d.name}`,
      description: `One ${d.name} with its ETag (If-None-Match with the current ETag: 304 without a body); \`attributes\`/\`excludedAttributes\` choose what it carries. A deactivated User is still returned.`,
      params: Id,
      querystring: ProjectionQuery,
      response: { 200: ScimResource, 304: z.null().describe('Not modified: If-None-Match names the current version'), ...scimErrors(404) },
    },
    handler: async (request, reply) => {
      const projection = projectionOf(d, request.query);
      const resource = await d.get(ctxOf(request), request.params.id, projection);
      if (notModified(request.headers['if-none-match'], versionOf(resource))) return reply.status(304).header('etag', versionOf(resource)).send(null);
      return reply.type(SCIM_MEDIA_TYPE).header('etag', versionOf(resource)).send(project(resource, projection));
    },
  });

  app.put(`${base}/:id`, {
    config,
    schema: {
      ...common,
      operationId: `${mount.operationPrefix}Replace${d.name}`,
      summary: `Replace a ${d.name}`,
      description: `Replaces the ${d.name}'s writable attributes with the body's (id, meta and unknown attributes are ignored; an absent \`active\` or \`members\` is kept). If-Match with a stale version is 412.`,
      params: Id,
      body: ScimBody,
      response: { 200: ScimResource, ...scimErrors(400, 404, 409, 412) },
    },
    handler: async (request, reply) => {
      const body = canonicalResource(d.schemas, request.body);
      const updated = await d.update(ctxOf(request), request.params.id, replacement(body), ifMatch(request));
      return reply.type(SCIM_MEDIA_TYPE).header('etag', versionOf(updated)).send(updated);
    },
  });

  app.patch(`${base}/:id`, {
    config,
    schema: {
      ...common,
      operationId: `${mount.operationPrefix}Patch${d.name}`,
      summary: `Patch a ${d.name}`,
      description: `Applies a PatchOp (add, replace, remove; any case; with or without a path; value filters such as \`emails[type eq "work"].value\` create the value when absent). Answers the ${d.name}. If-Match with a stale version is 412.`,
      params: Id,
      body: ScimBody,
      response: { 200: ScimResource, ...scimErrors(400, 404, 409, 412) },
    },
    handler: async (request, reply) => {
      const operations = patchOperations(request.body);
      const updated = await d.update(ctxOf(request), request.params.id, (current) => applyPatch(d.schemas, current, operations), ifMatch(request));
      return reply.type(SCIM_MEDIA_TYPE).header('etag', versionOf(updated)).send(updated);
    },
  });

  app.delete(`${base}/:id`, {
    config,
    schema: {
      ...common,
      operationId: `${mount.operationPrefix}Delete${d.name}`,
      summary: `Delete a ${d.name}`,
      description: `Deletes the ${d.name} from the directory (204). If-Match with a stale version is 412.`,
      params: Id,
      response: { 204: z.null().describe('Deleted'), ...scimErrors(404, 412) },
    },
    handler: async (request, reply) => {
      await d.remove(ctxOf(request), request.params.id, ifMatch(request));
      return reply.status(204).send(null);
    },
  });
}
