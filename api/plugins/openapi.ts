// OpenAPI 3.1 generated from the route schemas (the same zod shapes that validate and serialize),
// served at /v1/openapi, with Swagger UI at /docs.
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { TAGS } from '../common/tags.ts';
import { SCOPE_FAMILIES } from '../scopes.ts';
import { BEARER, OAUTH2 } from './auth.ts';
import { ENVIRONMENT_SECRET, PROVISIONING_TOKEN } from './environment-secret.ts';

type Json = { [key: string]: unknown };
const REF = '#/components/schemas/';
// Not `import … from 'node:http'`: an ESM import of it makes Node load its bundled undici (about 2 MB of heap).
const { STATUS_CODES } = process.getBuiltinModule('node:http');

/** Calls `visit` on every object below `value` (depth first). */
function walk(value: unknown, visit: (node: Json) => void) {
  if (Array.isArray(value)) value.forEach((v) => walk(v, visit));
  else if (value && typeof value === 'object') {
    visit(value as Json);
    Object.values(value).forEach((v) => walk(v, visit));
  }
}

/** The operations of a document's paths. */
const operationsOf = (paths: Json | undefined) => Object.values(paths ?? {}).flatMap((item) => Object.values(item as Record<string, Json>));

// fastify-type-provider-zod emits an input and an output variant (`FooInput`, `Foo`) of every schema with an id,
// used or not. Keep the ones the operations reach, name a request-only `FooInput` plain `Foo`, and replace
// fastify-swagger's "Default Response" with the status text. Response schemas are opened (zod closes every output
// object with `additionalProperties: false`, but clients must keep fields they do not know, so a validating client
// must not refuse a field added later); request schemas stay as they are (strict: unknown fields are a 400).
function tidy<T extends object>(document: T): T {
  const doc = document as Json & { paths?: Json; components?: { schemas?: Record<string, unknown> } };
  const schemas = doc.components?.schemas ?? {};
  const reachFrom = (start: unknown) => {
    const reached = new Set<string>();
    const reach = (value: unknown) =>
      walk(value, (node) => {
        const name = typeof node.$ref === 'string' && node.$ref.startsWith(REF) ? node.$ref.slice(REF.length) : undefined;
        if (name && !reached.has(name)) {
          reached.add(name);
          reach(schemas[name]);
        }
      });
    reach(start);
    return reached;
  };
  const reached = reachFrom(doc.paths);
  const responses = operationsOf(doc.paths).map((operation) => operation.responses);
  const requested = reachFrom(operationsOf(doc.paths).map(({ responses: _, ...request }) => request));
  const open = (node: Json) => {
    if (node.additionalProperties === false) delete node.additionalProperties;
  };
  walk(responses, open);
  for (const name of reachFrom(responses)) if (!requested.has(name)) walk(schemas[name], open);
  const rename = (name: string) => (name.endsWith('Input') && !reached.has(name.slice(0, -5)) ? name.slice(0, -5) : name);
  const kept = Object.fromEntries([...reached].sort().map((name) => [rename(name), schemas[name]]));
  walk([doc.paths, kept], (node) => {
    if (typeof node.$ref === 'string' && node.$ref.startsWith(REF)) node.$ref = REF + rename(node.$ref.slice(REF.length));
  });
  for (const operation of operationsOf(doc.paths)) {
    for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
      if (response.description === 'Default Response') response.description = STATUS_CODES[status] ?? `${status} response`;
    }
  }
  doc.components = { ...doc.components, schemas: kept };
  for (const operation of operationsOf(doc.paths)) publishScope(operation);
  return document;
}

/**
 * Routes declare the scope they need in both alternatives of their security (`[{ bearerAuth: [scope] }, { oauth2: [scope] }]`,
 * read by ./auth.ts). OpenAPI tooling (Spectral's stock `oas3-operation-security-defined`, client generators) takes the
 * names listed under a scheme as OAuth 2.0 scopes of that scheme, which an HTTP bearer scheme has none of: the document lists the
 * scope under `oauth2` only, and states it for every bearer token as `x-required-scope`.
 */
function publishScope(operation: Json) {
  const security = operation.security as Record<string, string[]>[] | undefined;
  const scope = security?.find((requirement) => requirement[BEARER]?.length)?.[BEARER]?.[0];
  if (!security || !scope) return;
  operation.security = security.map((requirement) => (requirement[BEARER] ? { ...requirement, [BEARER]: [] } : requirement));
  operation['x-required-scope'] = scope;
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
        // Self-hosted: whoever runs the service is the contact, reached where it is published.
        contact: { name: 'The operators of this deployment', url: publicBaseUrl },
      },
      servers: [{ url: publicBaseUrl }],
      tags: TAGS.map((tag) => ({ ...tag })),
      components: {
        securitySchemes: {
          [BEARER]: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description:
              '`Authorization: Bearer <token>`: an access token (a JWT) from POST /v1/oauth/token, a personal access token (adpat_…) or an ' +
              'organization key (adok_…); the latter two are opaque bearer tokens, accepted the same way. An operation needs the scope its ' +
              '`oauth2` requirement lists (also given as its `x-required-scope`), carried by the token whichever kind it is (write implies ' +
              'read; `*` is every scope).',
          },
          [ENVIRONMENT_SECRET]: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'adenv_…',
            description:
              '`Authorization: Bearer adenv_…`: an environment API secret. It selects the environment whose model answers, and must have been ' +
              'created with the purpose of the operation (`authzen` for /access/v1, `mcp` for the trust-store runtime, `fga` for the FGA API at ' +
              '/v1/fga, whose operations also take a management token).',
          },
          [PROVISIONING_TOKEN]: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'adscim_… | adhris_…',
            description:
              '`Authorization: Bearer adscim_…`: a provisioning token. It selects the environment whose directory is provisioned; an ' +
              '`adscim_` token serves SCIM 2.0 at /v1/scim/v2, an `adhris_` token HRIS at /v1/hris/v1, and neither the other.',
          },
          [OAUTH2]: {
            type: 'oauth2',
            description: 'OAuth 2.0 client credentials of a service account: the access token is then sent as a bearer token.',
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

/** Before the families: the document is made of the routes registered after it. */
export const openApiPlugin = fp<{ publicBaseUrl: string; tokenUrl: string }>(
  async (app, { publicBaseUrl, tokenUrl }) => registerOpenApi(app, publicBaseUrl, tokenUrl),
  { name: 'openapi', fastify: '5.x', dependencies: ['auth', 'environment-secret'] },
);
