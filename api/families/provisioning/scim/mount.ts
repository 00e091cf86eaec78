// A SCIM service at a mount path: its media types, SCIM errors everywhere below it, discovery, Bulk and the routes
// of each resource descriptor, authenticated by a provisioning token of one kind. SCIM (/v1/scim/v2: Users,
// Groups) is one mount; HRIS (/v1/hris/v1: Employees, Departments) is another over the same machinery.
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { emptyTolerantJsonParser } from '../../../plugins/request-text.ts';
import type { App } from '../../../types.ts';
import { bulkRoute } from './bulk.ts';
import type { ScimMount } from './descriptor.ts';
import { discoveryRoutes } from './discovery.ts';
import { registerScimErrors, SCIM_MEDIA_TYPE } from './errors.ts';
import { collectMethods } from './method-not-allowed.ts';
import { ListResponse, resourceRoutes } from './routes.ts';
import { rootSearchRoute } from './search.ts';

export type { ScimMount };

export async function mountScim(app: App, mount: ScimMount) {
  await app.register(
    async (scope) => {
      const scim = scope.withTypeProvider<ZodTypeProvider>();
      // Clients send application/scim+json, often with `; charset=utf-8`; Okta's tests send application/json.
      scim.addContentTypeParser(SCIM_MEDIA_TYPE, { parseAs: 'string' }, emptyTolerantJsonParser(scim));
      registerScimErrors(scim);
      const addMethodNotAllowed = collectMethods(scim, mount);
      discoveryRoutes(scim, mount);
      for (const descriptor of mount.descriptors) resourceRoutes(scim, mount, descriptor);
      bulkRoute(scim, mount);
      rootSearchRoute(scim, mount, ListResponse);
      addMethodNotAllowed();
    },
    { prefix: mount.prefix },
  );
}
