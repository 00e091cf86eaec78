// Events of organizations, their members, invitations and tenant links, spread into the event catalog.
// Invitation events never carry the token or join code (the schema pins both to null).
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { uuid } from '../../shared/rows.ts';
import { Organization, OrganizationInvitation, OrganizationMember } from './rows.ts';
import { Tenant } from '../../tenants/tenants/rows.ts';

const organization = z.looseObject({ organization: Organization });
const member = z.looseObject({ member: OrganizationMember });
const invitation = z.looseObject({ invitation: OrganizationInvitation.extend({ token: z.null(), invitationCode: z.null() }) });
const link = z.looseObject({ organizationId: uuid, tenant: Tenant });

export const ORGANIZATION_EVENTS = {
  'organization.created': {
    description: 'An organization was created; `tenantIds` are the tenants linked to it at creation.',
    data: z.looseObject({ organization: z.looseObject({ id: uuid, name: z.string() }), tenantIds: z.array(uuid).optional() }),
  },
  'organization.updated': {
    description: 'An organization was changed; `previous` holds the former values of the changed fields.',
    data: organization.extend({ previous: z.record(z.string(), z.unknown()) }),
  },
  'organization.deleted': { description: 'An organization was deleted; `organization` is its last state.', data: organization },
  'organization.member.joined': {
    description: 'A user became an active member of an organization by accepting an invitation.',
    data: member.extend({ invitationId: uuid }),
  },
  'organization.member.updated': {
    description: 'A member of an organization was activated or deactivated; `previous` holds the former values.',
    data: member.extend({ previous: z.record(z.string(), z.unknown()) }),
  },
  'organization.member.removed': { description: 'A member was removed from an organization; `member` is its last state.', data: member },
  'organization.invitation.created': { description: 'An invitation to join an organization was created.', data: invitation },
  'organization.invitation.resent': { description: 'An invitation was sent again with a new token, code and expiry.', data: invitation },
  'organization.invitation.revoked': { description: 'A pending invitation was revoked.', data: invitation },
  'organization.invitation.accepted': { description: 'An invitation was accepted; the user is now a member.', data: invitation },
  'organization.invitation.expired': { description: 'A pending invitation reached its expiry without being accepted.', data: invitation },
  'organization.tenant.linked': { description: 'A tenant was linked to an organization (its members now reach it).', data: link },
  'organization.tenant.unlinked': { description: 'A tenant was unlinked from an organization.', data: link },
  'tenant.transferred': {
    description: 'A tenant was moved to another organization: the links through which the caller reached it were replaced by the target.',
    data: z.looseObject({ tenant: Tenant, fromOrganizationIds: z.array(uuid), toOrganizationId: uuid }),
  },
} as const satisfies Record<string, EventTypeEntry>;
