import { defineFamily } from '../../family.ts';
import { tenantSeatRoutes } from './routes.ts';
import { createTenantSeatService } from './service.ts';

export default defineFamily({ name: 'tenants/seats', register: (app, { pool }) => tenantSeatRoutes(app, createTenantSeatService(pool)) });
