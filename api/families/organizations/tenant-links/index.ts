import { defineFamily } from '../../family.ts';
import { organizationTenantRoutes } from './routes.ts';
import { createOrganizationTenantService } from './service.ts';

export default defineFamily({
  name: 'organizations/tenant-links',
  register: (app, { pool }) => organizationTenantRoutes(app, createOrganizationTenantService({ pool })),
});
