// A message sent through an environment's providers, as the API shows it: who, what kind, how it went; never its
// content (a code or a link), which is sealed until it is sent and then dropped.
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../shared/rows.ts';

export const MESSAGE_STATUSES = ['queued', 'sent', 'failed', 'bounced'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
export const MESSAGE_KINDS = [
  'sign_up_code',
  'sign_up_existing_account',
  'password_reset',
  'sign_in_code',
  'sms_code',
  'invitation',
  'elevate_notice',
] as const;

export const MessageRecord = z
  .object({
    id: uuid,
    environmentId: uuid,
    channel: z.enum(['email', 'sms']),
    kind: z.string().describe('What the message is for: `sign_up_code`, `sign_in_code`, `password_reset`, `sms_code`…'),
    template: z.string().describe('The template it was rendered from: `verification`, `magic_link`, `one_time_code`…'),
    recipient: z.string().describe('The email address or E.164 phone number'),
    locale: z.string(),
    status: z.enum(MESSAGE_STATUSES),
    providers: z.array(z.string()).describe('The providers to try, in order: the first, then the failover'),
    provider: z.string().nullable().describe('The provider of the last attempt (the one that sent it, once `sent`)'),
    providerMessageId: z.string().nullable().describe('The vendor’s message id, once sent'),
    attempts: z.number().int(),
    lastError: z.string().nullable().describe('The last refusal or failure, in the vendor’s words'),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
    sentAt: nullableTimestamp,
    failedAt: nullableTimestamp,
    bouncedAt: nullableTimestamp,
  })
  .meta({ id: 'Message' });
export type MessageRecord = z.infer<typeof MessageRecord>;
