// Discovery (RFC 7644 §4): what the mount implements, for clients that read it before provisioning.
import { z } from 'zod';
import { ScimError } from '../../../../lib/scim/errors.ts';
import { URN, type SchemaDef } from '../../../../lib/scim/schema.ts';
import { listResponse } from '../../../../lib/scim/list.ts';
import { requiresProvisioningToken } from '../../../plugins/environment-secret.ts';
import type { App } from '../../../types.ts';
import { SCIM_MEDIA_TYPE, scimErrors } from './errors.ts';
import { MAX_RESULTS, scimContext } from './requests.ts';
import { ScimResource } from './routes.ts';
import type { ScimMount } from './descriptor.ts';
import type { ResourceDescriptor } from './descriptor.ts';

export const BULK_MAX_OPERATIONS = 1000;
const BULK_MAX_PAYLOAD = 1_048_576;

const meta = (baseUrl: string, resourceType: string, path: string) => ({ resourceType, location: `${baseUrl}${path}` });

function serviceProviderConfig(baseUrl: string, sort: boolean) {
  return {
    schemas: [URN.serviceProviderConfig],
    documentationUri: `${baseUrl.replace(/\/v1\/.*$/, '')}/docs`,
    patch: { supported: true },
    bulk: { supported: true, maxOperations: BULK_MAX_OPERATIONS, maxPayloadSize: BULK_MAX_PAYLOAD },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: sort },
    etag: { supported: true },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: 'A provisioning token of the environment, sent as "Authorization: Bearer <token>".',
        primary: true,
      },
    ],
    meta: { ...meta(baseUrl, 'ServiceProviderConfig', '/ServiceProviderConfig') },
  };
}

const resourceType = (baseUrl: string, d: ResourceDescriptor) => ({
  schemas: [URN.resourceType],
  id: d.name,
  name: d.name,
  endpoint: d.endpoint,
  description: d.description,
  schema: d.schemas.core.id,
  schemaExtensions: d.schemas.extensions.map((e) => ({ schema: e.id, required: false })),
  meta: meta(baseUrl, 'ResourceType', `/ResourceTypes/${d.name}`),
});

const schema = (baseUrl: string, s: SchemaDef) => ({ schemas: [URN.schema], ...s, meta: meta(baseUrl, 'Schema', `/Schemas/${s.id}`) });

export function discoveryRoutes(app: App, mount: ScimMount) {
  const common = { tags: [mount.tag], security: requiresProvisioningToken };
  const config = { provisioning: mount.kind };
  const baseOf = (request: Parameters<typeof scimContext>[0]) => scimContext(request, mount.prefix).baseUrl;
  const schemas = () => [...new Map(mount.descriptors.flatMap((d) => [d.schemas.core, ...d.schemas.extensions]).map((s) => [s.id, s])).values()];
  const Id = z.object({ id: z.string().max(200) });
  const all = (items: Record<string, unknown>[]) => listResponse(items, items.length, { startIndex: 1, count: items.length }) as never;

  app.get('/ServiceProviderConfig', {
    config,
    schema: {
      ...common,
      operationId: `${mount.operationPrefix}GetServiceProviderConfig`,
      summary: 'What this SCIM service supports',
      description:
        'Patch, bulk (maxOperations, maxPayloadSize), filter (maxResults), sort and ETags are supported; changePassword is not. Authentication: a provisioning token as a bearer token.',
      response: { 200: z.looseObject({ schemas: z.array(z.string()) }).meta({ id: 'ScimServiceProviderConfig' }), ...scimErrors() },
    },
    handler: async (request, reply) => reply.type(SCIM_MEDIA_TYPE).send(serviceProviderConfig(baseOf(request), mount.sort ?? true)),
  });
  app.get('/ResourceTypes', {
    config,
    schema: {
      ...common,
      operationId: `${mount.operationPrefix}ListResourceTypes`,
      summary: 'The resource types of this SCIM service',
      description: `A ListResponse of the resource types served here (${mount.descriptors.map((d) => d.name).join(', ')}) with their schema and extensions.`,
      response: { 200: z.looseObject({ Resources: z.array(ScimResource) }).meta({ id: 'ScimResourceTypes' }), ...scimErrors() },
    },
    handler: async (request, reply) => reply.type(SCIM_MEDIA_TYPE).send(all(mount.descriptors.map((d) => resourceType(baseOf(request), d)) as never)),
  });
  app.get('/ResourceTypes/:id', {
    config,
    schema: {
      ...common,
      operationId: `${mount.operationPrefix}GetResourceType`,
      summary: 'One resource type of this SCIM service',
      description: 'The resource type by its name (`User`, `Group`); 404 for another.',
      params: Id,
      response: { 200: ScimResource, ...scimErrors(404) },
    },
    handler: async (request, reply) => {
      const d = mount.descriptors.find((x) => x.name.toLowerCase() === request.params.id.toLowerCase());
      if (!d) throw new ScimError(404, `No resource type ${request.params.id}.`);
      return reply.type(SCIM_MEDIA_TYPE).send(resourceType(baseOf(request), d));
    },
  });
  app.get('/Schemas', {
    config,
    schema: {
      ...common,
      operationId: `${mount.operationPrefix}ListSchemas`,
      summary: 'The schemas of this SCIM service',
      description:
        'A ListResponse of the schemas implemented here, listing exactly the attributes that are stored and returned, with their mutability, returned, caseExact and uniqueness.',
      response: { 200: z.looseObject({ Resources: z.array(ScimResource) }).meta({ id: 'ScimSchemas' }), ...scimErrors() },
    },
    handler: async (request, reply) => reply.type(SCIM_MEDIA_TYPE).send(all(schemas().map((s) => schema(baseOf(request), s)) as never)),
  });
  app.get('/Schemas/:id', {
    config,
    schema: {
      ...common,
      operationId: `${mount.operationPrefix}GetSchema`,
      summary: 'One schema of this SCIM service',
      description: 'The schema by its URN; 404 for another.',
      params: Id,
      response: { 200: ScimResource, ...scimErrors(404) },
    },
    handler: async (request, reply) => {
      const s = schemas().find((x) => x.id.toLowerCase() === request.params.id.toLowerCase());
      if (!s) throw new ScimError(404, `No schema ${request.params.id}.`);
      return reply.type(SCIM_MEDIA_TYPE).send(schema(baseOf(request), s));
    },
  });
}
