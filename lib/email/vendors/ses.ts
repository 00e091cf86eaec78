// Amazon SES v2: POST {baseUrl}/v2/email/outbound-emails signed with SigV4 (service `ses`, the config's region);
// answers `{ MessageId }`, errors `{ message }` with an `x-amzn-ErrorType` header.
// https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_SendEmail.html
import aws4 from 'aws4';
import { sesBaseUrl, type EmailConfig, type EmailSecrets } from '../kinds.ts';
import { postJson, stringAt } from './http.ts';
import { EmailSendError, type EmailSender, type OutboundPolicy } from './types.ts';

const utf8 = (data: string) => ({ Data: data, Charset: 'UTF-8' });

export function sesSender(config: EmailConfig<'ses'>, secrets: EmailSecrets<'ses'>, policy: OutboundPolicy): EmailSender {
  return {
    async send({ to, subject, text, html }) {
      const url = new URL(`${config.baseUrl ?? sesBaseUrl(config.region)}/v2/email/outbound-emails`);
      const body = JSON.stringify({
        FromEmailAddress: config.from,
        Destination: { ToAddresses: [to] },
        ...(config.replyTo ? { ReplyToAddresses: [config.replyTo] } : {}),
        Content: { Simple: { Subject: utf8(subject), Body: { Text: utf8(text), Html: utf8(html) } } },
      });
      const signed = aws4.sign(
        {
          host: url.host,
          path: url.pathname,
          method: 'POST',
          service: 'ses',
          region: config.region,
          headers: { 'content-type': 'application/json' },
          body,
        },
        { accessKeyId: secrets.accessKeyId, secretAccessKey: secrets.secretAccessKey },
      );
      const headers = Object.fromEntries(
        Object.entries(signed.headers ?? {})
          .filter(([name]) => !['host', 'content-length'].includes(name.toLowerCase()))
          .map(([name, value]) => [name.toLowerCase(), String(value)]),
      );
      const { json } = await postJson(url.href, body, headers, policy, (error) => stringAt(error, 'message') ?? stringAt(error, 'Message'));
      const id = stringAt(json, 'MessageId');
      if (!id) throw new EmailSendError('SES answered without a MessageId');
      return { messageId: id };
    },
  };
}
