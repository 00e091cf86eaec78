// Invitations into an organization: create (or send an invite to an operator by email), list, revoke, resend.
// Each pending invitation has an `invitation-expiry:<id>` process, started and signalled through the outbox
// in the transaction of the change. Token and join code are returned at create and resend only.
import type { DatabaseTransactionConnection } from 'slonik';
import { createOperatorUserQueries } from '../../../../db/identity/users/operators.ts';
import { createOrganizationInvitationQueries } from '../../../../db/organizations/invitations/queries.ts';
import { createOrganizationMemberQueries } from '../../../../db/organizations/members/queries.ts';
import { createOrganizationTenantQueries } from '../../../../db/organizations/tenant-links/queries.ts';
import { createProcessOutboxQueries } from '../../../../db/processes/outbox.ts';
import type { OrganizationInvitation } from '../../../../db/organizations/organizations/rows.ts';
import { processId } from '../../../../workflows/index.ts';
import { INVITATION_TOPIC, type InvitationMessage } from '../../../../workflows/invitation-expiry.ts';
import { conflict, invalidField, orNotFound } from '../../../errors.ts';
import { narrow } from '../../../scopes.ts';
import { record, type CallerChange, type OrganizationCaller } from '../../../access/caller.ts';
import { expiryOf, newInvitationSecrets, refuseUnlessPending } from './secrets.ts';
import { scopedOrganization, type OrganizationServiceDeps } from '../organizations/service.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';

type Trx = DatabaseTransactionConnection;
type Verb = 'create' | 'resend' | 'revoke';
const PAST: Record<Verb, string> = { create: 'created', resend: 'resent', revoke: 'revoked' };

interface NewInvitation {
  email: string;
  role: string;
  message: string | null;
  tenantAccess: string[];
  validFrom: string | null;
  expiresAt: number;
}

export const signalInvitation = (trx: Trx, invitationId: string, payload: InvitationMessage) =>
  createProcessOutboxQueries(trx).enqueueSignal({ processId: processId('invitation-expiry', invitationId), topic: INVITATION_TOPIC, payload: { ...payload } });

export function createOrganizationInvitationService(deps: OrganizationServiceDeps) {
  const { pool } = deps;
  const change = (verb: Verb, invitation: OrganizationInvitation, before: OrganizationInvitation | null): CallerChange => ({
    action: `organization.invitation.${verb}`,
    resource: { type: 'organization_invitation', id: invitation.id },
    before,
    after: invitation,
    event: { type: `organization.invitation.${PAST[verb]}`, data: { invitation } },
  });
  const refuseDuplicate = async (trx: Trx, organizationId: string, email: string) => {
    if (await createOrganizationInvitationQueries(trx).hasPendingForEmail(organizationId, email)) {
      throw conflict('organization_invitation.already_pending', 'A pending invitation for this email exists; resend or revoke it.');
    }
  };
  const issue = async (trx: Trx, caller: OrganizationCaller, input: NewInvitation) => {
    const { organizationId } = caller.scope;
    const secrets = newInvitationSecrets();
    const queries = createOrganizationInvitationQueries(trx);
    const id = await queries.insertInvitation({
      organizationId,
      ...input,
      expiresAt: new Date(input.expiresAt).toISOString(),
      invitedBy: caller.principal.id,
      inviterUserId: caller.principal.type === 'user' ? caller.principal.id : null,
      tokenHash: secrets.tokenHash,
      codeHash: secrets.codeHash,
    });
    await createProcessOutboxQueries(trx).enqueueStart({
      kind: 'invitation-expiry',
      processId: processId('invitation-expiry', id),
      tenantId: null,
      input: { invitationId: id, expiresAt: input.expiresAt },
    });
    const invitation = await queries.findInvitationById(id);
    await record(trx, caller, change('create', invitation, null));
    return { ...invitation, token: secrets.token, invitationCode: secrets.code };
  };
  /** The pending invitation, locked; 404 unless it is in an organization of the caller, 409 unless pending. */
  const findPending = async (trx: Trx, caller: OrganizationCaller, id: string) => {
    const organization = await scopedOrganization(trx, caller);
    const queries = createOrganizationInvitationQueries(trx);
    await orNotFound(queries.findInvitation(organization.id, id), 'organization_invitation', id);
    const invitation = await queries.lockInvitation(id);
    refuseUnlessPending(invitation);
    return { organization, invitation };
  };

  return {
    list: async (caller: OrganizationCaller, query: PageQuery) => {
      const organization = await scopedOrganization(pool, caller);
      return {
        organization,
        ...(await listPage('invitations', query, (page) => createOrganizationInvitationQueries(pool).findInvitations(organization.id, page))),
      };
    },

    create: (caller: OrganizationCaller, input: { email: string; role?: string; expiresAt?: string; tenantAccess?: string[]; message?: string | null }) =>
      pool.transaction(async (trx) => {
        const organization = await scopedOrganization(trx, caller, true);
        const organizationId = organization.id;
        const expiresAt = expiryOf(input.expiresAt, 'body.expiresAt');
        const tenantAccess = [...new Set(input.tenantAccess ?? [])];
        for (const [i, tenantId] of (input.tenantAccess ?? []).entries()) {
          if (!(await createOrganizationTenantQueries(trx).organizationIdsOfTenant(tenantId)).includes(organizationId)) {
            throw invalidField(`body.tenantAccess.${i}`, 'is not a tenant of this organization', 'organization_invitation.tenant_not_in_organization');
          }
        }
        if (await createOrganizationMemberQueries(trx).hasActiveMemberWithEmail(organizationId, input.email)) {
          throw conflict('organization_invitation.already_member', 'A member of the organization already has this email.');
        }
        await refuseDuplicate(trx, organizationId, input.email);
        const invitation = await issue(trx, caller, {
          email: input.email,
          role: input.role ?? 'member',
          message: input.message ?? null,
          tenantAccess,
          validFrom: null,
          expiresAt,
        });
        return { organization, invitation };
      }),

    revoke: (caller: OrganizationCaller, id: string) =>
      pool.transaction(async (trx) => {
        const { organization, invitation: before } = await findPending(trx, caller, id);
        const queries = createOrganizationInvitationQueries(trx);
        await queries.markRevoked(id);
        await signalInvitation(trx, id, { revoked: true });
        const invitation = await queries.findInvitationById(id);
        await record(trx, caller, change('revoke', invitation, before));
        return { organization, invitation };
      }),

    resend: (caller: OrganizationCaller, id: string, input: { expiresAt?: string } = {}) =>
      pool.transaction(async (trx) => {
        const { organization, invitation: before } = await findPending(trx, caller, id);
        const expiresAt = expiryOf(input.expiresAt, 'body.expiresAt');
        const secrets = newInvitationSecrets();
        const queries = createOrganizationInvitationQueries(trx);
        await queries.replaceSecrets(id, secrets.tokenHash, secrets.codeHash, new Date(expiresAt).toISOString());
        await signalInvitation(trx, id, { expiresAt });
        const invitation = await queries.findInvitationById(id);
        await record(trx, caller, change('resend', invitation, before));
        return { organization, invitation: { ...invitation, token: secrets.token, invitationCode: secrets.code } };
      }),

    /** Finds or creates the operator user with this email, adds a pending membership, and invites them. */
    sendInvite: (caller: OrganizationCaller, input: { email: string; scopes?: string[]; validFrom?: string; validUntil?: string }) => {
      const beyond = (input.scopes ?? []).filter((s) => narrow(caller.principal.scopes, [s]).length === 0);
      if (beyond.length > 0)
        throw invalidField('body.scopes', `includes scopes the caller does not hold: ${beyond.join(', ')}`, 'organization_invitation.scope_not_held');
      const expiresAt = expiryOf(input.validUntil, 'body.validUntil');
      if (input.validFrom && Date.parse(input.validFrom) >= expiresAt) throw invalidField('body.validFrom', 'must be before validUntil');
      return pool.transaction(async (trx) => {
        const organization = await scopedOrganization(trx, caller, true);
        const organizationId = organization.id;
        const operators = createOperatorUserQueries(trx);
        const home = await operators.findOperatorEnvironment();
        if (!home) throw new Error('the bootstrap record (operator environment) is missing');
        let userId = await operators.findUserIdByEmail(home.environmentId, input.email);
        if (!userId) {
          userId = await operators.insertInvitedUser({ environmentId: home.environmentId, email: input.email, managementScopes: input.scopes ?? [] });
          const user = { id: userId, userName: input.email };
          await record(trx, caller, {
            action: 'user.create',
            resource: { type: 'user', id: userId },
            scope: { organizationId: null, tenantId: home.tenantId, environmentId: home.environmentId },
            after: user,
            event: { type: 'user.created', data: { user } },
          });
        }
        const members = createOrganizationMemberQueries(trx);
        if ((await members.findMemberOfUser(organizationId, userId))?.active) {
          throw conflict('organization_invitation.already_member', 'This user is already an active member of the organization.');
        }
        await refuseDuplicate(trx, organizationId, input.email);
        await members.insertPendingMember(organizationId, userId, 'member');
        const invitation = await issue(trx, caller, {
          email: input.email,
          role: 'member',
          message: null,
          tenantAccess: [],
          validFrom: input.validFrom ?? null,
          expiresAt,
        });
        const member = (await members.findMemberOfUser(organizationId, userId))!;
        return { organization, user: member.user!, invitation };
      });
    },
  };
}

export type OrganizationInvitationService = ReturnType<typeof createOrganizationInvitationService>;
