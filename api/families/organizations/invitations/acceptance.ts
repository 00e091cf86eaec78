// Accepting an organization invitation, by its token or by its join code: the caller must be a user whose
// verified email is the invited one. They become an active member with the invited role, at once.
import type { DatabaseTransactionConnection } from 'slonik';
import { hashSecret } from '../../../../lib/crypto.ts';
import { createOperatorUserQueries } from '../../../../db/identity/users/operators.ts';
import { createOrganizationInvitationQueries } from '../../../../db/organizations/invitations/queries.ts';
import { createOrganizationMemberQueries } from '../../../../db/organizations/members/queries.ts';
import { createOrganizationQueries } from '../../../../db/organizations/organizations/queries.ts';
import { ApiError, conflict, notFound } from '../../../errors.ts';
import { record, type Caller } from '../../../access/caller.ts';
import { codeHash, refuseUnlessPending } from './secrets.ts';
import { signalInvitation } from './service.ts';
import { requireUser, type OrganizationServiceDeps } from '../organizations/service.ts';

type Ref = { id: string; organizationId: string; validFrom: string | null } | null;

const invitationNotFound = () => new ApiError(404, 'organization_invitation.not_found', 'No invitation matches this token or code.');

export function createInvitationAcceptanceService(deps: OrganizationServiceDeps) {
  const { pool } = deps;

  const settle = async (caller: Caller, find: (trx: DatabaseTransactionConnection) => Promise<Ref>) => {
    const userId = requireUser(caller, 'accept an invitation');
    const result = await pool.transaction(async (trx) => {
      const ref = await find(trx);
      if (!ref) throw invitationNotFound();
      const invitations = createOrganizationInvitationQueries(trx);
      const before = await invitations.lockInvitation(ref.organizationId, ref.id);
      const verified = await createOperatorUserQueries(trx).verifiedEmailsOf(userId);
      if (!verified.includes(before.email.toLowerCase())) {
        throw new ApiError(403, 'organization_invitation.email_mismatch', 'The invitation is for another email address than the verified emails of this user.');
      }
      refuseUnlessPending(before);
      if (ref.validFrom && Date.parse(ref.validFrom) > Date.now()) {
        throw conflict('organization_invitation.not_yet_valid', `The invitation can be accepted from ${new Date(ref.validFrom).toISOString()} on.`);
      }
      const memberId = await createOrganizationMemberQueries(trx).joinMember(before.organizationId, userId, before.role ?? 'member');
      await invitations.markAccepted(ref.organizationId, ref.id, userId);
      await signalInvitation(trx, ref.id, { accepted: true });
      const invitation = await invitations.findInvitationById(ref.id);
      const member = (await createOrganizationMemberQueries(trx).findMember(before.organizationId, memberId))!;
      const organization = await createOrganizationQueries(trx).findOrganizationById(before.organizationId);
      if (!organization) throw notFound('organization', before.organizationId);
      const scope = { organizationId: organization.id };
      await record(trx, caller, {
        action: 'organization.invitation.accept',
        resource: { type: 'organization_invitation', id: ref.id },
        scope,
        before,
        after: invitation,
        event: { type: 'organization.invitation.accepted', data: { invitation: { ...invitation, token: null, invitationCode: null } } },
      });
      await record(trx, caller, {
        action: 'organization.member.join',
        resource: { type: 'organization_member', id: member.id },
        scope,
        after: member,
        event: { type: 'organization.member.joined', data: { member, invitationId: ref.id } },
      });
      return { organization, member };
    });
    return result;
  };

  return {
    accept: (caller: Caller, token: string) => settle(caller, (trx) => createOrganizationInvitationQueries(trx).findByTokenHash(hashSecret(token))),

    join: async (caller: Caller, invitationCode: string) => {
      const { organization, member } = await settle(caller, (trx) => createOrganizationInvitationQueries(trx).findByCodeHash(codeHash(invitationCode)));
      return { organization, user: member.user! };
    },
  };
}

export type InvitationAcceptanceService = ReturnType<typeof createInvitationAcceptanceService>;
