// The services the widget API acts through: the same ones the management API uses, so the rules, audit entries,
// events and processes (the invitation mail and expiry) are the same whichever surface made the change.
import type { FastifyBaseLogger } from 'fastify';
import type { DatabasePool } from 'slonik';
import type { MessageSender } from '../../../../lib/messages/sender.ts';
import { withInvitationMail } from '../../../messages/invitation-mail.ts';
import { createDirectoryUserService } from '../../directory/users/service.ts';
import { createDirectorySessionService } from '../../directory/sessions/service.ts';
import type { BackChannelLogoutSettings } from '../../directory/sessions/back-channel.ts';
import { createPasskeyService } from '../../directory/passkeys/service.ts';
import { createMfaFactorService } from '../../directory/mfa-factors/service.ts';
import { createOrganizationInvitationService } from '../../organizations/invitations/service.ts';
import { createOrganizationMemberService } from '../../organizations/members/service.ts';
import { createPersonalAccessTokenService } from '../../identity/personal-access-tokens/service.ts';
import { createAuditLogService } from '../../events/audit-logs/service.ts';

export function createWidgetServices(deps: { pool: DatabasePool; logout: BackChannelLogoutSettings; sender: MessageSender; log: FastifyBaseLogger }) {
  const { pool } = deps;
  return {
    users: createDirectoryUserService(pool),
    sessions: createDirectorySessionService(pool, deps.logout),
    passkeys: createPasskeyService(pool),
    mfaFactors: createMfaFactorService(pool),
    invitations: withInvitationMail(createOrganizationInvitationService({ pool }), { pool, sender: deps.sender, log: deps.log }),
    members: createOrganizationMemberService({ pool }),
    apiKeys: createPersonalAccessTokenService(pool),
    auditLogs: createAuditLogService(pool),
  };
}

export type WidgetServices = ReturnType<typeof createWidgetServices>;
