// Response headers every answer carries, computed once by helmet at start-up (helmet itself re-derives its policy on
// every request, a measurable share of a decision's cost): for the JSON API the headers OWASP's REST security cheat
// sheet lists (a CSP that loads nothing, framing denied, nosniff, HSTS, no referrer, same-origin resources); for
// the Swagger UI at /docs, helmet's browser set with a CSP the UI works under. `Cache-Control: no-store` goes on
// every answer that may hold a credential or tenant data: all authenticated routes and the token endpoint. Only
// the public, credential-free routes (health, JWKS, OpenAPI, the Swagger UI) may be cached.
import fp from 'fastify-plugin';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A public route whose answers must not be cached either (the token endpoint). */
    noStore?: boolean;
  }
}

/** The headers helmet sets with `options`, captured once. */
function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: unknown) => void (headers[name.toLowerCase()] = String(value)),
    removeHeader: (name: string) => void delete headers[name.toLowerCase()],
  };
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, () => {});
  return headers;
}

const API_HEADERS = helmetHeaders({
  contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
  frameguard: { action: 'deny' },
  // Directives for documents a browser renders; a JSON answer is not one.
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
});

const DOCS_HEADERS = helmetHeaders({
  // Helmet's defaults, framing denied, and no upgrade-insecure-requests: the service is often reached over plain
  // http on 127.0.0.1, where upgrading the Swagger UI's scripts and styles to https would break /docs.
  contentSecurityPolicy: { directives: { frameAncestors: ["'none'"], upgradeInsecureRequests: null } },
  frameguard: { action: 'deny' },
});

export function registerSecurityHeaders(app: FastifyInstance) {
  app.addHook('onRequest', (request, reply, done) => {
    if (request.url.startsWith('/docs')) {
      reply.headers(DOCS_HEADERS);
      return done();
    }
    reply.headers(API_HEADERS);
    const config = request.routeOptions.config;
    if (!config?.public || config.noStore) reply.header('cache-control', 'no-store');
    done();
  });
}

export const securityHeadersPlugin = fp(async (app) => registerSecurityHeaders(app), { name: 'security-headers', fastify: '5.x' });
