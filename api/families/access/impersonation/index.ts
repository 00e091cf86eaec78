import formbody from '@fastify/formbody';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { defineFamily } from '../../family.ts';
import { introspectionRoutes } from './introspection-routes.ts';
import { createIntrospection } from './introspection.ts';
import { impersonationRoutes } from './routes.ts';
import { createImpersonationService } from './service.ts';

export default defineFamily({
  name: 'access/impersonation',
  register: async (app, { pool, keys, issuer }) => {
    impersonationRoutes(app, createImpersonationService({ pool, keys, issuer }));
    // Token introspection (RFC 7662) takes form bodies, like the token endpoint; the parser stays in its own plugin.
    await app.register(async (scope) => {
      await scope.register(formbody);
      const { authenticator } = app;
      const introspection = createIntrospection({ pool, keys, issuer, authenticator });
      introspectionRoutes(scope.withTypeProvider<ZodTypeProvider>(), introspection, { pool, authenticator });
    });
  },
});
