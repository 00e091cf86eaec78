// The elevate notice: a new access request that waits for a decision is mailed to its policy's approvers whose email
// is known (the policy's users and its groups' members, never the requester), through the environment's sender, after
// the request is committed. A notice that cannot be handed over is logged; the request stands either way.
import type { DatabasePool } from 'slonik';
import type { MessageSender } from '../../lib/messages/sender.ts';
import { createRecipientQueries } from '../../db/messages/recipients.ts';

export interface PendingRequest {
  requesterId: string;
  justification: string | null;
  expiresAt: string;
}

export interface NoticeDeps {
  pool: DatabasePool;
  sender: MessageSender;
  log: { error(fields: object, message: string): void };
}

export async function sendElevateNotice(
  deps: NoticeDeps,
  environmentId: string,
  request: PendingRequest,
  policy: { name: string; approvers: { userIds: string[]; groupIds: string[] } },
) {
  const recipients = createRecipientQueries(deps.pool, environmentId);
  const emails = await recipients.emailsOf(policy.approvers.userIds, policy.approvers.groupIds, request.requesterId);
  if (emails.length === 0) return;
  const requester = (await recipients.labelOf(request.requesterId)) ?? request.requesterId;
  const params = { requester, access: policy.name, reason: request.justification ?? '—', expiresAt: request.expiresAt };
  for (const to of emails) {
    await deps.sender
      .send({ template: 'elevate_notice', params, to, environmentId })
      .catch((error: unknown) => deps.log.error({ err: error, template: 'elevate_notice' }, 'message could not be sent'));
  }
}
