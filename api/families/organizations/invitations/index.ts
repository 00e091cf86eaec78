import { defineFamily } from '../../family.ts';
import { createInvitationAcceptanceService } from './acceptance.ts';
import { organizationInvitationRoutes } from './routes.ts';
import { createOrganizationInvitationService } from './service.ts';
import { withInvitationMail } from '../../../messages/invitation-mail.ts';

export default defineFamily({
  name: 'organizations/invitations',
  register: (app, { pool, sender }) =>
    organizationInvitationRoutes(
      app,
      withInvitationMail(createOrganizationInvitationService({ pool }), { pool, sender, log: app.log }),
      createInvitationAcceptanceService({ pool }),
    ),
});
