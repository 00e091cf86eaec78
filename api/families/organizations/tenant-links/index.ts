import { defineFamily } from '../../family.ts';
import { organizationTenantRoutes } from './routes.ts';
import { createOrganizationTenantService } from './service.ts';

export default defineFamily({
  name: 'organizations/tenant-links',
  register: (app, { pool, evict }) => organizationTenantRoutes(app, createOrganizationTenantService({ pool, evict })),
});
