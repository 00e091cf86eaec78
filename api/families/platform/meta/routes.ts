// Public routes: health, JWKS, the OpenAPI document.
import { sql, type DatabasePool } from 'slonik';
import { z } from 'zod';
import { Probe } from '../../../common/schemas.ts';
import type { SigningKeys } from '../../identity/signing-keys/service.ts';
import type { App } from '../../../types.ts';

const Jwks = z.object({ keys: z.array(z.record(z.string(), z.unknown())) }).meta({ id: 'JsonWebKeySet' });

export function metaRoutes(app: App, deps: { pool: DatabasePool; keys: SigningKeys }) {
  app.get('/v1/health', {
    // Never rate limited: a client behind the same address spending its budget must not make the service look down.
    config: { public: true, rateLimit: false },
    schema: { tags: ['Health'], summary: 'Liveness and database reachability', response: { 200: Probe, 503: Probe } },
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
    schema: { tags: ['Service accounts'], summary: 'Public keys that verify management access tokens', response: { 200: Jwks } },
    handler: async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return deps.keys.jwks();
    },
  });

  app.get('/v1/openapi', {
    config: { public: true },
    schema: { hide: true },
    handler: () => app.swagger(),
  });
}
