import { defineFamily } from '../../family.ts';
import { createOrganizationMemberService } from '../members/service.ts';
import { organizationRoutes } from './routes.ts';
import { createOrganizationService } from './service.ts';

// Evicting at once lets a new member use the organization on their next request.
export default defineFamily({
  name: 'organizations/organizations',
  register: (app, { pool }) => organizationRoutes(app, createOrganizationService({ pool }), createOrganizationMemberService({ pool })),
});
