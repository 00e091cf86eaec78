import { defineFamily } from '../../family.ts';
import { environmentRoutes } from './routes.ts';
import { createEnvironmentService } from './service.ts';

export default defineFamily({ name: 'projects/environments', register: (app, { pool }) => environmentRoutes(app, createEnvironmentService(pool)) });
