// SendGrid v3: POST {baseUrl}/v3/mail/send with a Bearer API key; 202 with the id in `X-Message-Id`,
// errors `{ errors: [{ message, field }] }`. https://www.twilio.com/docs/sendgrid/api-reference/mail-send/mail-send
import { DEFAULT_BASE_URLS, type EmailConfig, type EmailSecrets } from '../kinds.ts';
import { postJson } from './http.ts';
import { EmailSendError, type EmailSender, type OutboundPolicy } from './types.ts';

const errorText = (json: unknown) => {
  const errors = (json as { errors?: { message?: unknown; field?: unknown }[] } | undefined)?.errors;
  if (!Array.isArray(errors)) return undefined;
  return errors.map((e) => (typeof e.field === 'string' && e.field ? `${e.field}: ${String(e.message)}` : String(e.message))).join('; ') || undefined;
};

export function sendgridSender(config: EmailConfig<'sendgrid'>, secrets: EmailSecrets<'sendgrid'>, policy: OutboundPolicy): EmailSender {
  return {
    async send({ to, subject, text, html }) {
      const body = {
        personalizations: [{ to: [{ email: to }] }],
        from: { email: config.from },
        ...(config.replyTo ? { reply_to: { email: config.replyTo } } : {}),
        subject,
        content: [
          { type: 'text/plain', value: text },
          { type: 'text/html', value: html },
        ],
      };
      const { headers } = await postJson(
        `${config.baseUrl ?? DEFAULT_BASE_URLS.sendgrid}/v3/mail/send`,
        JSON.stringify(body),
        { authorization: `Bearer ${secrets.apiKey}` },
        policy,
        errorText,
      );
      const id = headers['x-message-id'];
      if (!id) throw new EmailSendError('SendGrid answered without an X-Message-Id header');
      return { messageId: id };
    },
  };
}
