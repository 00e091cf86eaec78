// MessageBird SMS: POST /messages, JSON `{ originator, recipients, body }`, `Authorization: AccessKey <key>`.
// 201 `{ id }`; errors `{ errors: [{ code, description, parameter }] }`.
import { z } from 'zod';
import { allowedCountries, alphanumericSender, e164 } from '../phone.ts';
import { baseUrlOf, callVendor, excerpt, parseJson, SmsVendorError, type SmsSender, type SmsTransport } from '../vendor-call.ts';

export const messagebirdConfig = z.strictObject({
  originator: z.union([e164, alphanumericSender], { error: 'must be an E.164 phone number or an alphanumeric sender id of 1–11 characters' }),
  baseUrl: z.url().optional(),
  allowedCountries: allowedCountries.optional(),
});
export const messagebirdSecrets = z.strictObject({ accessKey: z.string().min(1) });

export function messagebirdSender(config: z.infer<typeof messagebirdConfig>, secrets: z.infer<typeof messagebirdSecrets>, transport: SmsTransport): SmsSender {
  const url = `${baseUrlOf(config.baseUrl, 'https://rest.messagebird.com')}/messages`;
  return {
    async send({ to, text }) {
      const body = JSON.stringify({ originator: config.originator, recipients: [to.replace(/^\+/, '')], body: text });
      const res = await callVendor(
        'messagebird',
        url,
        body,
        { authorization: `AccessKey ${secrets.accessKey}`, 'content-type': 'application/json' },
        transport,
      );
      const json = parseJson(res.text);
      if (res.ok && typeof json?.id === 'string') return { messageId: json.id };
      const errors = Array.isArray(json?.errors) ? (json.errors as { description?: unknown; code?: unknown }[]) : [];
      const reason = errors.length ? errors.map((e) => `${String(e.description)} (code ${String(e.code)})`).join('; ') : excerpt(res.text);
      throw new SmsVendorError('messagebird', `MessageBird answered ${res.status}: ${reason}`, res.status);
    },
  };
}
