// expireInvitation: marks an organization invitation expired once it is due, with its event, exactly once
// (the row is locked and re-read: a retry, a replay or a second process finds it settled).
import type { DatabasePool } from 'slonik';
import { recordChange } from '../db/shared/changes.ts';
import { createOrganizationInvitationQueries } from '../db/organizations/invitations/queries.ts';
import type { Activities } from '../workflows/activities.ts';

export interface InvitationDeps {
  pool: DatabasePool;
}

export function createInvitationActivities(deps: InvitationDeps): Pick<Activities, 'expireInvitation'> {
  return {
    expireInvitation: ({ invitationId }) =>
      deps.pool.transaction(async (trx) => {
        const invitations = createOrganizationInvitationQueries(trx);
        const result = await invitations.expireIfDue(invitationId);
        if (result.outcome !== 'expired') return result;
        const invitation = await invitations.findInvitationById(invitationId);
        await recordChange(trx, {
          actor: { type: 'system', id: 'invitation-expiry' },
          action: 'organization.invitation.expire',
          resource: { type: 'organization_invitation', id: invitationId },
          scope: { organizationId: invitation.organizationId },
          before: { status: 'pending' },
          after: { status: 'expired' },
          event: { type: 'organization.invitation.expired', data: { invitation: { ...invitation, token: null, invitationCode: null } } },
        });
        return result;
      }),
  };
}
