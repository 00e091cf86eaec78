import { defineFamily } from '../../family.ts';
import { createInvitationAcceptanceService } from './acceptance.ts';
import { organizationInvitationRoutes } from './routes.ts';
import { createOrganizationInvitationService } from './service.ts';

export default defineFamily({
  name: 'organizations/invitations',
  register: (app, { pool }) => organizationInvitationRoutes(app, createOrganizationInvitationService({ pool }), createInvitationAcceptanceService({ pool })),
});
