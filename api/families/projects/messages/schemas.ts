// Request and response shapes of the messages family: a message's record, never its content.
import { z } from 'zod';
import { pageOf, PageQuery } from '../../../common/schemas.ts';
import { MESSAGE_KINDS, MESSAGE_STATUSES, MessageRecord } from '../../../../db/messages/rows.ts';

export { MessageRecord };

export const EnvironmentScopeParams = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid() });
export const MessageParams = EnvironmentScopeParams.extend({ messageId: z.uuid() });

export const MessageListQuery = PageQuery.extend({
  status: z.enum(MESSAGE_STATUSES).optional().describe('Only messages of this status'),
  kind: z.enum(MESSAGE_KINDS).optional().describe('Only messages of this kind'),
  recipient: z.string().min(1).max(320).optional().describe('Only messages to this email address or phone number (case-insensitive)'),
});

export const MessagesList = pageOf('messages', MessageRecord).meta({ id: 'MessagesList' });
export const MessageResponse = z.object({ message: MessageRecord }).meta({ id: 'MessageResponse' });

// Not `environmentId`: that name is for routes under a tenant (api/plugins/scope.ts); this one is public.
export const PostmarkHookParams = z.strictObject({ environment: z.uuid().describe('The environment id') });
// Postmark's bounce webhook body: the fields read here; every other field Postmark sends is accepted and ignored.
export const PostmarkHookBody = z
  .looseObject({
    RecordType: z.string().max(50),
    MessageID: z.string().max(200).optional(),
    Type: z.string().max(100).optional(),
    Description: z.string().max(2000).optional(),
  })
  .meta({ id: 'PostmarkWebhook' });
export const HookResponse = z.object({ ok: z.boolean(), bounced: z.boolean() }).meta({ id: 'MessageHookResponse' });
