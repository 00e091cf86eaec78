import { defineFamily } from '../../family.ts';
import { directorySessionRoutes } from './routes.ts';
import { createDirectorySessionService } from './service.ts';

export default defineFamily({
  name: 'directory/sessions',
  register: (app, { pool, oidc }) => directorySessionRoutes(app, createDirectorySessionService(pool, oidc, app.log)),
});
