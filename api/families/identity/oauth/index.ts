import formbody from '@fastify/formbody';
import { defineFamily } from '../../family.ts';
import { oauthRoutes } from './routes.ts';
import { createOAuthTokenService } from './service.ts';

export default defineFamily({
  name: 'identity/oauth',
  register: async (app, { pool, keys, issuer, audience, config }) => {
    // Form bodies are accepted by the token endpoint only (RFC 6749); everything else speaks JSON. Family plugins are
    // encapsulated, so the form parser stays inside this one.
    await app.register(formbody);
    oauthRoutes(app, createOAuthTokenService({ pool, keys, issuer, audience, ttlSeconds: config.accessTokenTtlSeconds }));
  },
});
