// A method a known SCIM path does not serve is 405 with `Allow` and a SCIM error (RFC 9110 §15.5.6), not 404: the
// routes of the mount are collected as they are added, then each path gets a route for the methods it lacks.
import type { RouteOptions } from 'fastify';
import { ScimError } from '../../../../lib/scim/errors.ts';
import type { App } from '../../../types.ts';
import type { ScimMount } from './descriptor.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Starts collecting the routes added to `app`; the returned function adds the 405 routes of what it collected. */
export function collectMethods(app: App, mount: ScimMount) {
  const served = new Map<string, Set<string>>();
  app.addHook('onRoute', (route: RouteOptions & { routePath?: string }) => {
    const path = route.routePath ?? route.url;
    const methods = served.get(path) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    served.set(path, methods);
  });
  return () => {
    for (const [path, methods] of [...served]) {
      const missing = METHODS.filter((m) => !methods.has(m));
      if (missing.length === 0) continue;
      const allow = [...methods].sort().join(', ');
      app.route({
        method: missing,
        url: path,
        config: { provisioning: mount.kind },
        schema: { hide: true },
        handler: (request) => {
          throw new ScimError(405, `${request.method} is not allowed on ${request.url.split('?')[0]}: use ${allow}.`, undefined, { allow });
        },
      });
    }
  };
}
