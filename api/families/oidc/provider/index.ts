// Every environment an OpenID provider: the issuers mounted under /v1/oidc/{environmentId} and the RFC 8414
// path-insertion discovery URLs. The Providers themselves are api/oidc/providers.ts (FamilyDeps.oidc).
import { defineFamily } from '../../family.ts';
import { createMount } from './mount.ts';
import { providerRoutes } from './routes.ts';

export default defineFamily({
  name: 'oidc/provider',
  register: (app, { oidc, config, vanity }) => providerRoutes(app, createMount(oidc, config.publicBaseUrl, vanity)),
});
