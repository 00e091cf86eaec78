import { defineFamily } from '../../family.ts';
import { connectedAppRoutes } from './routes.ts';
import { createConnectedAppService } from './service.ts';

export default defineFamily({
  name: 'oidc/connected-apps',
  register: (app, { pool }) => connectedAppRoutes(app, createConnectedAppService(pool)),
});
