// The environments' issuers: every path below `/v1/oidc/{environmentId}` goes to its Provider (./mount.ts), and
// the RFC 8414 path-insertion discovery URLs (MCP clients try those first) answer its discovery document.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { createMount } from './mount.ts';

// Not `:environmentId`: these public routes address an environment without a tenant, and the scope guard
// resolves only routes with a principal.
const Params = z.object({ envId: z.string() });
// HEAD comes with GET (Fastify's exposeHeadRoutes).
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

export function providerRoutes(app: FastifyInstance, mount: ReturnType<typeof createMount>) {
  const config = { public: true };
  const schema = { hide: true };
  // The provider reads bodies itself, from the raw stream: nothing here may consume them.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

  app.route({
    method: [...METHODS],
    url: '/v1/oidc/:envId',
    config,
    schema,
    handler: (request, reply) => mount(request, reply, Params.parse(request.params).envId),
  });
  app.route({
    method: [...METHODS],
    url: '/v1/oidc/:envId/*',
    config,
    schema,
    handler: (request, reply) => mount(request, reply, Params.parse(request.params).envId),
  });
  for (const wellKnown of ['oauth-authorization-server', 'openid-configuration']) {
    app.route({
      method: ['GET', 'OPTIONS'],
      url: `/.well-known/${wellKnown}/v1/oidc/:envId`,
      config,
      schema,
      handler: (request, reply) => mount(request, reply, Params.parse(request.params).envId, '/.well-known/openid-configuration'),
    });
  }
}
