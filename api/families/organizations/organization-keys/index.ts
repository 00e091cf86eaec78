import { defineFamily } from '../../family.ts';
import { organizationKeyRoutes } from './routes.ts';
import { createOrganizationKeyService } from './service.ts';

export default defineFamily({
  name: 'organizations/organization-keys',
  register: (app, { pool }) => organizationKeyRoutes(app, createOrganizationKeyService(pool)),
});
