import { defineFamily } from '../../family.ts';
import { portalLinkRoutes } from './routes.ts';
import { portalRoutes } from './portal-routes.ts';
import { createPortalLinkService } from './service.ts';
import { createPortalServices } from './services.ts';
import { createPortalSessions } from './sessions.ts';

export default defineFamily({
  name: 'organizations/admin-portal',
  register: async (app, { pool, masterKey, config }) => {
    const { publicBaseUrl, allowPrivateNetworkTargets } = config;
    portalLinkRoutes(app, createPortalLinkService({ pool, publicBaseUrl }));
    const sessions = createPortalSessions({ pool, masterKey, publicBaseUrl });
    await portalRoutes(app, {
      pool,
      masterKey,
      publicBaseUrl,
      allowPrivateNetworkTargets,
      sessions,
      services: createPortalServices({ pool, masterKey, config }),
    });
  },
});
