// Invitations into an organization: create (or send an invite to an operator by email), list, revoke, resend.
// Each pending invitation has an `invitation-expiry:<id>` process, started and signalled through the outbox
// in the transaction of the change. Token and join code are returned at create and resend only.
import type { DatabaseTransactionConnection } from 'slonik';
import type { EventType } from '../../../../db/event-catalog.ts';
import { createOperatorUserQueries } from '../../../../db/identity/users/operators.ts';
import { createOrganizationInvitationQueries } from '../../../../db/organizations/invitations/queries.ts';
import { createOrganizationMemberQueries } from '../../../../db/organizations/members/queries.ts';
import { createOrganizationTenantQueries } from '../../../../db/organizations/tenant-links/queries.ts';
import { createProcessOutboxQueries } from '../../../../db/processes/outbox.ts';
import type { OrganizationInvitation } from '../../../../db/organizations/organizations/rows.ts';
import type { InvitationMessage } from '../../../../workflows/invitation-expiry.ts';
import { conflict, invalidField, orNotFound } from '../../../errors.ts';
import { narrow } from '../../../scopes.ts';
import { record, type CallerChange, type OrganizationCaller } from '../../../access/caller.ts';
import { expiryOf, newInvitationSecrets, refuseUnlessPending } from './secrets.ts';
import { scopedOrganization, type OrganizationServiceDeps } from '../organizations/service.ts';
import { listPage, type PageQuery } from '../../../common/schemas.ts';

type Trx = DatabaseTransactionConnection;
type Verb = 'create' | 'resend' | 'revoke';
const EVENT_OF = {
  create: 'organization.invitation.created',
  resend: 'organization.invitation.resent',
  revoke: 'organization.invitation.revoked',
} as const satisfies Record<Verb, EventType>;

interface NewInvitation {
  email: string;
  role: string;
  message: string | null;
  tenantAccess: string[];
  validFrom: string | null;
  expiresAt: number;
}

export const signalInvitation = (trx: Trx, invitationId: string, payload: InvitationMessage) =>
  createProcessOutboxQueries(trx).enqueueSignal({ kind: 'invitation-expiry', entityId: invitationId, topic: 'invitation', payload });

export function createOrganizationInvitationService(deps: OrganizationServiceDeps) {
  const { pool } = deps;
  const change = (verb: Verb, invitation: OrganizationInvitation, before: OrganizationInvitation | null): CallerChange => ({
    action: `organization.invitation.${verb}`,
    resource: { type: 'organization_invitation', id: invitation.id },
    before,
    after: invitation,
    event: { type: EVENT_OF[verb], data: { invitation: { ...invitation, token: null, invitationCode: null } } },
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
      entityId: id,
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
    const invitation = await queries.lockInvitation(organization.id, id);
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
        await queries.markRevoked(organization.id, id);
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
        await queries.replaceSecrets(organization.id, id, secrets.tokenHash, secrets.codeHash, new Date(expiresAt).toISOString());
        await signalInvitation(trx, id, { expiresAt });
        const invitation = await queries.findInvitationById(id);
        await record(trx, caller, change('resend', invitation, before));
        return { organization, invitation: { ...invitation, token: secrets.token, invitationCode: secrets.code } };
      }),

    /**
     * Invites an operator by email. The invitee's operator account is found, or created for the email (unverified,
     * with `scopes`) so that they can sign in with it; until they join, nothing of it reaches the inviting
     * organization: no member, no user in the response, no entry but the invitation's. Operators are shared by
     * every organization, so whether an email already had an account is not the inviter's to learn.
     */
    sendInvite: (caller: OrganizationCaller, input: { email: string; scopes?: string[]; validFrom?: string; validUntil?: string }) => {
      const beyond = (input.scopes ?? []).filter((s) => narrow(caller.principal.scopes, [s]).length === 0);
      if (beyond.length > 0)
        throw invalidField('body.scopes', `includes scopes the caller does not hold: ${beyond.join(', ')}`, 'organization_invitation.scope_not_held');
      const expiresAt = expiryOf(input.validUntil, 'body.validUntil');
      if (input.validFrom && Date.parse(input.validFrom) >= expiresAt) throw invalidField('body.validFrom', 'must be before validUntil');
      return pool.transaction(async (trx) => {
        const organization = await scopedOrganization(trx, caller, true);
        const organizationId = organization.id;
        if (await createOrganizationMemberQueries(trx).hasActiveMemberWithEmail(organizationId, input.email)) {
          throw conflict('organization_invitation.already_member', 'A member of the organization already has this email.');
        }
        await refuseDuplicate(trx, organizationId, input.email);
        const operators = createOperatorUserQueries(trx);
        const home = await operators.findOperatorEnvironment();
        if (!home) throw new Error('the bootstrap record (operator environment) is missing');
        if (!(await operators.findUserIdByEmail(home.environmentId, input.email))) {
          await operators.insertInvitedUser({ environmentId: home.environmentId, email: input.email, managementScopes: input.scopes ?? [] });
        }
        const invitation = await issue(trx, caller, {
          email: input.email,
          role: 'member',
          message: null,
          tenantAccess: [],
          validFrom: input.validFrom ?? null,
          expiresAt,
        });
        return { organization, user: null, invitation };
      });
    },
  };
}

export type OrganizationInvitationService = ReturnType<typeof createOrganizationInvitationService>;
