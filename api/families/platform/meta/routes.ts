// Public routes: health, JWKS, the OpenAPI document.
import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import { Probe } from '../../../common/schemas.ts';
import type { SigningKeys } from '../../../access/signing-keys.ts';
import type { App } from '../../../types.ts';

const Jwks = z.object({ keys: z.array(z.record(z.string(), z.unknown())) }).meta({ id: 'JsonWebKeySet' });
const OpenApiDocument = z
  .looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) })
  .meta({ id: 'OpenApiDocument', description: 'An OpenAPI 3.1 document' });

export function metaRoutes(app: App, deps: { pool: DatabasePool; keys: SigningKeys }) {
  app.get('/v1/health', {
    // Never rate limited: a client behind the same address spending its budget must not make the service look down.
    config: { public: true, rateLimit: false },
    schema: {
      tags: ['Health'],
      operationId: 'getHealth',
      summary: 'Liveness and database reachability',
      description:
        'Answers `{ ok: true }` when the service runs and reaches its database, and 503 with `{ ok: false }` when the database does not answer. Needs no token.',
      response: { 200: Probe, 503: Probe },
    },
    handler: async (_request, reply) => {
      try {
        await deps.pool.query(sql.unsafe`SELECT 1`);
        return { ok: true };
      } catch {
        return reply.status(503).send({ ok: false });
      }
    },
  });

  app.get('/.well-known/jwks.json', {
    config: { public: true },
    schema: {
      tags: ['Authentication'],
      operationId: 'getJwks',
      summary: 'Public keys that verify management access tokens',
      description:
        'The JSON Web Key Set of the keys signing access tokens: the active one and retired ones whose tokens have not expired yet. Needs no token; cacheable for 5 minutes.',
      response: { 200: Jwks },
    },
    handler: async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return deps.keys.jwks();
    },
  });

  app.get('/v1/openapi', {
    config: { public: true },
    schema: {
      tags: ['Health'],
      operationId: 'getOpenApiDocument',
      summary: 'This API described in OpenAPI 3.1',
      description:
        'The machine-readable description of every operation, generated from the schemas that validate requests and serialize responses. Needs no token; Swagger UI shows it at /docs.',
      response: { 200: OpenApiDocument },
    },
    handler: () => app.swagger() as z.infer<typeof OpenApiDocument>,
  });
}
