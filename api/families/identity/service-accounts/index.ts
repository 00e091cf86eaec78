import { defineFamily } from '../../family.ts';
import { serviceAccountRoutes } from './routes.ts';
import { createServiceAccountService } from './service.ts';

export default defineFamily({ name: 'identity/service-accounts', register: (app, { pool }) => serviceAccountRoutes(app, createServiceAccountService(pool)) });
