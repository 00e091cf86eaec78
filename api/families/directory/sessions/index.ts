import { defineFamily, type FamilyDeps } from '../../family.ts';
import type { OidcProviders } from '../../../oidc/types.ts';
import { directorySessionRoutes } from './routes.ts';
import { createDirectorySessionService } from './service.ts';

// FamilyDeps gains `oidc` with the provider (branch oidc-provider); until then no back-channel logout is sent.
const oidcOf = (deps: FamilyDeps) => (deps as FamilyDeps & { oidc?: OidcProviders }).oidc;

export default defineFamily({
  name: 'directory/sessions',
  register: (app, deps) => directorySessionRoutes(app, createDirectorySessionService(deps.pool, oidcOf(deps), app.log)),
});
