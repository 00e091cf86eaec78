// Amazon SNS: the `Publish` action straight to a phone number, form POST to / (`Action=Publish&PhoneNumber=…&Message=…
// &Version=2010-03-31`, the sender id as the `AWS.SNS.SMS.SenderID` message attribute), signed with SigV4 (service
// `sns`). The id is `<MessageId>` of the XML answer; errors are `<ErrorResponse><Error><Code>…<Message>…`.
import aws4 from 'aws4';
import { z } from 'zod';
import { allowedCountries, alphanumericSender } from '../phone.ts';
import { baseUrlOf, callVendor, excerpt, SmsVendorError, type SmsSender, type SmsTransport } from '../vendor-call.ts';

export const snsConfig = z.strictObject({
  region: z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'must be an AWS region, e.g. us-east-1'),
  senderId: alphanumericSender.optional(),
  baseUrl: z.url().optional(),
  allowedCountries: allowedCountries.optional(),
});
export const snsSecrets = z.strictObject({ accessKeyId: z.string().min(1), secretAccessKey: z.string().min(1) });

const tag = (xml: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml)?.[1];

export function snsSender(config: z.infer<typeof snsConfig>, secrets: z.infer<typeof snsSecrets>, transport: SmsTransport): SmsSender {
  const base = new URL(baseUrlOf(config.baseUrl, `https://sns.${config.region}.amazonaws.com`));
  return {
    async send({ to, text }) {
      const form = new URLSearchParams({ Action: 'Publish', PhoneNumber: to, Message: text, Version: '2010-03-31' });
      if (config.senderId) {
        form.set('MessageAttributes.entry.1.Name', 'AWS.SNS.SMS.SenderID');
        form.set('MessageAttributes.entry.1.Value.DataType', 'String');
        form.set('MessageAttributes.entry.1.Value.StringValue', config.senderId);
      }
      const body = form.toString();
      const signed = aws4.sign(
        {
          host: base.host,
          path: '/',
          method: 'POST',
          service: 'sns',
          region: config.region,
          body,
          headers: { 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
        },
        { accessKeyId: secrets.accessKeyId, secretAccessKey: secrets.secretAccessKey },
      );
      const headers = Object.fromEntries(Object.entries(signed.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
      delete headers.host; // undici sets Host from the URL, the same value aws4 signed
      delete headers['content-length'];
      const res = await callVendor('sns', `${base.origin}/`, body, headers, transport);
      const messageId = tag(res.text, 'MessageId');
      if (res.ok && messageId) return { messageId };
      const code = tag(res.text, 'Code');
      const reason = code ? `${code}: ${tag(res.text, 'Message') ?? ''}` : excerpt(res.text);
      throw new SmsVendorError('sns', `Amazon SNS answered ${res.status}: ${reason}`, res.status);
    },
  };
}
