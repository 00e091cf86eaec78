import { defineFamily } from '../../family.ts';
import { userinfoRoutes } from './routes.ts';

export default defineFamily({ name: 'identity/userinfo', register: (app, { pool }) => userinfoRoutes(app, pool) });
