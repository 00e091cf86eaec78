import formbody from '@fastify/formbody';
import { defineFamily } from '../../family.ts';
import { createSsoService } from '../../../sso/service.ts';
import { ssoRoutes } from './routes.ts';

export default defineFamily({
  name: 'oidc/sso',
  register: async (app, { pool, oidc, masterKey, config }) => {
    // SAML responses arrive form-encoded (HTTP-POST binding); the parser stays inside this family.
    await app.register(formbody);
    const sso = createSsoService({ pool, oidc, masterKey, publicBaseUrl: config.publicBaseUrl, allowPrivateNetworkTargets: config.allowPrivateNetworkTargets });
    ssoRoutes(app, { oidc, sso, spMetadata: sso.spMetadata });
  },
});
