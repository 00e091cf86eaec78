// OpenAPI 3.1 generated from the route schemas (the same zod shapes that validate and serialize),
// served at /v1/openapi, with Swagger UI at /docs.
import { STATUS_CODES } from 'node:http';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { SCOPE_FAMILIES } from '../scopes.ts';
import { BEARER } from './auth.ts';

type Json = { [key: string]: unknown };
const REF = '#/components/schemas/';

/** Calls `visit` on every object below `value` (depth first). */
function walk(value: unknown, visit: (node: Json) => void) {
  if (Array.isArray(value)) value.forEach((v) => walk(v, visit));
  else if (value && typeof value === 'object') {
    visit(value as Json);
    Object.values(value).forEach((v) => walk(v, visit));
  }
}

// fastify-type-provider-zod emits an input and an output variant (`FooInput`, `Foo`) of every schema with an id,
// used or not. Keep the ones the operations reach, name a request-only `FooInput` plain `Foo`, and replace
// fastify-swagger's "Default Response" with the status text.
function tidy<T extends object>(document: T): T {
  const doc = document as Json & { paths?: Json; components?: { schemas?: Record<string, unknown> } };
  const schemas = doc.components?.schemas ?? {};
  const reached = new Set<string>();
  const reach = (value: unknown) =>
    walk(value, (node) => {
      const name = typeof node.$ref === 'string' && node.$ref.startsWith(REF) ? node.$ref.slice(REF.length) : undefined;
      if (name && !reached.has(name)) {
        reached.add(name);
        reach(schemas[name]);
      }
    });
  reach(doc.paths);
  const rename = (name: string) => (name.endsWith('Input') && !reached.has(name.slice(0, -5)) ? name.slice(0, -5) : name);
  const kept = Object.fromEntries([...reached].sort().map((name) => [rename(name), schemas[name]]));
  walk([doc.paths, kept], (node) => {
    if (typeof node.$ref === 'string' && node.$ref.startsWith(REF)) node.$ref = REF + rename(node.$ref.slice(REF.length));
  });
  for (const operation of Object.values(doc.paths ?? {}).flatMap((item) => Object.values(item as Record<string, Json>))) {
    for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
      if (response.description === 'Default Response') response.description = STATUS_CODES[status] ?? `${status} response`;
    }
  }
  doc.components = { ...doc.components, schemas: kept };
  return document;
}

export async function registerOpenApi(app: FastifyInstance, publicBaseUrl: string, tokenUrl: string) {
  const scopes = Object.fromEntries([
    ['*', 'Every operation'],
    ...SCOPE_FAMILIES.flatMap((f) => [
      [`${f}:read`, `Read ${f}`],
      [`${f}:write`, `Create, change and delete ${f} (implies read)`],
    ]),
  ]);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Identity and Access Management API',
        version: '1.0.0',
        description: 'Management API under /v1. Errors are `{ error, code, requestId, details? }`.',
      },
      servers: [{ url: publicBaseUrl }],
      components: {
        securitySchemes: {
          [BEARER]: {
            type: 'oauth2',
            description:
              'A JWT from POST /v1/oauth/token (client credentials), or a personal access token (adpat_…) or organization key (adok_…) sent as a bearer token.',
            flows: { clientCredentials: { tokenUrl, scopes } },
          },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: (input) => tidy(jsonSchemaTransformObject(input)),
  });
  // No validator badge: it would load an image from validator.swagger.io, which the CSP (security-headers.ts) refuses.
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', validatorUrl: null } });
}
