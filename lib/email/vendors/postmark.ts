// Postmark: POST {baseUrl}/email with `X-Postmark-Server-Token`; answers `{ MessageID, ErrorCode: 0 }`, errors
// `{ ErrorCode, Message }` (422 for a refused message). https://postmarkapp.com/developer/api/email-api
import { DEFAULT_BASE_URLS, type EmailConfig, type EmailSecrets } from '../kinds.ts';
import { postJson, stringAt } from './http.ts';
import { EmailSendError, type EmailSender, type OutboundPolicy } from './types.ts';

export function postmarkSender(config: EmailConfig<'postmark'>, secrets: EmailSecrets<'postmark'>, policy: OutboundPolicy): EmailSender {
  return {
    async send({ to, subject, text, html }) {
      const body = {
        From: config.from,
        To: to,
        Subject: subject,
        TextBody: text,
        HtmlBody: html,
        ...(config.replyTo ? { ReplyTo: config.replyTo } : {}),
        MessageStream: config.messageStream ?? 'outbound',
      };
      const { json } = await postJson(
        `${config.baseUrl ?? DEFAULT_BASE_URLS.postmark}/email`,
        JSON.stringify(body),
        { 'x-postmark-server-token': secrets.serverToken },
        policy,
        (error) => {
          const message = stringAt(error, 'Message');
          const code = (error as { ErrorCode?: unknown } | undefined)?.ErrorCode;
          return message && (typeof code === 'number' ? `${message} (ErrorCode ${code})` : message);
        },
      );
      const id = stringAt(json, 'MessageID');
      if (!id) throw new EmailSendError('Postmark answered without a MessageID');
      return { messageId: id };
    },
  };
}
