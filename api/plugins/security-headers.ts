// Response headers every answer carries (@fastify/helmet), and `Cache-Control: no-store` on every answer that may
// hold a credential or tenant data: all authenticated routes and the token endpoint. Only the public, credential-free
// routes (health, JWKS, OpenAPI, the Swagger UI at /docs) may be cached.
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A public route whose answers must not be cached either (the token endpoint). */
    noStore?: boolean;
  }
}

export async function registerSecurityHeaders(app: FastifyInstance) {
  await app.register(helmet, {
    // Helmet's defaults, framing denied, and no upgrade-insecure-requests: the service is often reached over plain
    // http on 127.0.0.1, where upgrading the Swagger UI's scripts and styles to https would break /docs.
    contentSecurityPolicy: { directives: { frameAncestors: ["'none'"], upgradeInsecureRequests: null } },
    frameguard: { action: 'deny' },
  });
  app.addHook('onRequest', (request, reply, done) => {
    const config = request.routeOptions.config;
    const cacheable = config?.public && !config.noStore;
    if (!cacheable && !request.url.startsWith('/docs')) reply.header('cache-control', 'no-store');
    done();
  });
}
