import { defineFamily } from '../../family.ts';
import { metaRoutes } from './routes.ts';

export default defineFamily({ name: 'platform/meta', register: (app, { pool, keys }) => metaRoutes(app, { pool, keys }) });
