import { defineFamily } from '../../family.ts';
import { tenantRoutes } from './routes.ts';
import { createTenantService } from './service.ts';

export default defineFamily({ name: 'tenants/tenants', register: (app, { pool }) => tenantRoutes(app, createTenantService(pool)) });
