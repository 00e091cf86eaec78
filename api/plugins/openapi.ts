// OpenAPI 3.1 generated from the route schemas (the same zod shapes that validate and serialize),
// served at /v1/openapi, with Swagger UI at /docs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { SCOPE_FAMILIES } from '../scopes.ts';
import { BEARER } from './auth.ts';

export async function registerOpenApi(app: FastifyInstance, publicBaseUrl: string, tokenUrl: string) {
  const scopes = Object.fromEntries([
    ['*', 'Every operation'],
    ...SCOPE_FAMILIES.flatMap((f) => [[`${f}:read`, `Read ${f}`], [`${f}:write`, `Create, change and delete ${f} (implies read)`]]),
  ]);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Identity and Access Management API', version: '1.0.0', description: 'Management API under /v1. Errors are `{ error, code, requestId, details? }`.' },
      servers: [{ url: publicBaseUrl }],
      components: {
        securitySchemes: {
          [BEARER]: {
            type: 'oauth2',
            description: 'A JWT from POST /v1/oauth/token (client credentials), or a personal access token (adpat_…) sent as a bearer token.',
            flows: { clientCredentials: { tokenUrl, scopes } },
          },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list' } });
}
