// Resend: POST {baseUrl}/emails with a Bearer API key; answers `{ id }`, errors `{ statusCode, name, message }`.
// https://resend.com/docs/api-reference/emails/send-email
import { DEFAULT_BASE_URLS, type EmailConfig, type EmailSecrets } from '../kinds.ts';
import { postJson, stringAt } from './http.ts';
import { EmailSendError, type EmailSender, type OutboundPolicy } from './types.ts';

export function resendSender(config: EmailConfig<'resend'>, secrets: EmailSecrets<'resend'>, policy: OutboundPolicy): EmailSender {
  return {
    async send({ to, subject, text, html }) {
      const body = { from: config.from, to: [to], subject, text, html, ...(config.replyTo ? { reply_to: config.replyTo } : {}) };
      const { json } = await postJson(
        `${config.baseUrl ?? DEFAULT_BASE_URLS.resend}/emails`,
        JSON.stringify(body),
        { authorization: `Bearer ${secrets.apiKey}` },
        policy,
        (error) => stringAt(error, 'message'),
      );
      const id = stringAt(json, 'id');
      if (!id) throw new EmailSendError('Resend answered without an email id');
      return { messageId: id };
    },
  };
}
