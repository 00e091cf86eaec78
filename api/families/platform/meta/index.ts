import { defineFamily } from '../../family.ts';
import { metaRoutes } from './routes.ts';
import { healthRoutes } from './health-routes.ts';

export default defineFamily({
  name: 'platform/meta',
  register: (app, { pool, keys, readiness }) => {
    healthRoutes(app, { readiness });
    metaRoutes(app, { pool, keys });
  },
});
