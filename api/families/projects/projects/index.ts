import { defineFamily } from '../../family.ts';
import { projectRoutes } from './routes.ts';
import { createProjectService } from './service.ts';

export default defineFamily({ name: 'projects/projects', register: (app, { pool }) => projectRoutes(app, createProjectService(pool)) });
