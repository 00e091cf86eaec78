// The adapter of each email provider kind: `senderOf(kind, config, secrets, policy).send({ to, subject, text, html })`.
import type { EmailConfig, EmailProviderKind, EmailSecrets } from '../kinds.ts';
import { postmarkSender } from './postmark.ts';
import { resendSender } from './resend.ts';
import { sendgridSender } from './sendgrid.ts';
import { sesSender } from './ses.ts';
import { smtpSender } from './smtp.ts';
import type { EmailSender, OutboundPolicy } from './types.ts';

export { EmailSendError, type EmailMessage, type EmailSender, type OutboundPolicy } from './types.ts';

const SENDERS: { [K in EmailProviderKind]: (config: EmailConfig<K>, secrets: EmailSecrets<K>, policy: OutboundPolicy) => EmailSender } = {
  resend: resendSender,
  sendgrid: sendgridSender,
  postmark: postmarkSender,
  ses: sesSender,
  smtp: smtpSender,
};

/** The sender of a provider from its parsed config and decrypted secrets. */
export function senderOf<K extends EmailProviderKind>(kind: K, config: EmailConfig<K>, secrets: EmailSecrets<K>, policy: OutboundPolicy): EmailSender {
  return SENDERS[kind](config, secrets, policy);
}
