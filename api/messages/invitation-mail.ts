// The invitation mail: each organization invitation created, sent (operator invite) or resent is mailed to its email
// with its join code, after the change is committed. Organizations are above environments: the mail goes through the
// providers of the operator environment (where the invitee's operator account lives), else the log sender.
import type { DatabasePool } from 'slonik';
import type { MessageSender } from '../../lib/messages/sender.ts';
import { createOperatorUserQueries } from '../../db/identity/users/operators.ts';

interface Issued {
  organization: { name: string };
  invitation: { email: string; invitationCode: string | null; expiresAt: string | null };
}

export interface InvitationMailDeps {
  pool: DatabasePool;
  sender: MessageSender;
  log: { error(fields: object, message: string): void };
}

export async function mailInvitation(deps: InvitationMailDeps, issued: Issued) {
  const { invitation, organization } = issued;
  if (!invitation.invitationCode) return;
  const home = await createOperatorUserQueries(deps.pool).findOperatorEnvironment();
  if (!home) return;
  const params = { organization: organization.name, code: invitation.invitationCode, expiresAt: invitation.expiresAt ?? '' };
  await deps.sender
    .send({ template: 'invitation', params, to: invitation.email, environmentId: home.environmentId })
    .catch((error: unknown) => deps.log.error({ err: error, template: 'invitation' }, 'message could not be sent'));
}

/** The service with its issuing methods (create, sendInvite, resend) followed by the invitation mail. */
export function withInvitationMail<S extends Record<'create' | 'sendInvite' | 'resend', (...args: never[]) => Promise<Issued>>>(
  service: S,
  deps: InvitationMailDeps,
): S {
  const mailed =
    <A extends never[]>(issue: (...args: A) => Promise<Issued>) =>
    async (...args: A) => {
      const issued = await issue(...args);
      await mailInvitation(deps, issued);
      return issued;
    };
  return { ...service, create: mailed(service.create), sendInvite: mailed(service.sendInvite), resend: mailed(service.resend) };
}
