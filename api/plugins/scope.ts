// The tenant scope guard: on every authenticated route, before the request is validated or handled, resolves
// what its path params address (`:organizationId`, `:tenantId`, `:environmentId`; `config.tenantOf` for a route
// naming a tenant's resource by its own id) and refuses what the principal cannot reach with a 404 naming it.
// Services receive the result in `Caller.scope` (callerOf) and never check reach again. In a tenant reached
// through a tenant seat, the seat's scopes narrow the token's, whatever the route's params are called.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { DatabasePool } from 'slonik';
import { grants } from '../scopes.ts';
import { seatScopes } from '../access/principals.ts';
import { resolveScope, type TenantOf } from '../access/reach.ts';
import { insufficientScope, requiredScope } from './auth.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How a route naming a tenant's resource by its own id, without `:tenantId`, finds the tenant. */
    tenantOf?: TenantOf;
  }
}

export function registerScope(app: FastifyInstance, pool: DatabasePool) {
  app.addHook('onRoute', (route) => {
    if (route.url.includes(':environmentId') && !route.url.includes(':tenantId') && !route.config?.tenantOf) {
      throw new Error(`route ${route.method} ${route.url} addresses an environment outside a tenant`);
    }
  });

  // Registered after auth: a missing or insufficient token is refused first, and nothing is looked up for it.
  // A callback hook: routes without a principal (public, environment secret) pass without a promise.
  app.addHook('preValidation', (request, _reply, done) => {
    const principal = request.principal;
    if (!principal) return done();
    resolveScope(pool, principal, (request.params ?? {}) as Record<string, unknown>, request.routeOptions.config.tenantOf).then((scope) => {
      request.scope = scope;
      const required = requiredScope(request);
      const narrowed = scope.tenant && required ? seatScopes(principal, scope.tenant.id) : null;
      if (required && narrowed && !grants(narrowed, required)) {
        return done(
          insufficientScope(required, 'auth.insufficient_seat_scope', `This operation needs the scope ${required}, which the tenant seat does not grant.`),
        );
      }
      done();
    }, done);
  });
}

/** After auth: a missing or insufficient token is refused before anything is looked up for it. */
export const scopePlugin = fp<{ pool: DatabasePool }>(async (app, { pool }) => registerScope(app, pool), {
  name: 'scope',
  fastify: '5.x',
  dependencies: ['auth'],
  decorators: { request: ['principal', 'scope'] },
});
