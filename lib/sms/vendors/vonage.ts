// Vonage SMS API: POST /sms/json, form-encoded `api_key`, `api_secret`, `from`, `to` (digits, no '+'), `text`.
// Always 200: success when `messages[0].status` is "0" (id `message-id`), otherwise `messages[0]["error-text"]`.
import { z } from 'zod';
import { allowedCountries, e164 } from '../phone.ts';
import { baseUrlOf, callVendor, excerpt, parseJson, SmsVendorError, type SmsSender, type SmsTransport } from '../vendor-call.ts';

export const vonageConfig = z.strictObject({
  from: e164,
  baseUrl: z.url().optional(),
  allowedCountries: allowedCountries.optional(),
});
export const vonageSecrets = z.strictObject({ apiKey: z.string().min(1), apiSecret: z.string().min(1) });

export function vonageSender(config: z.infer<typeof vonageConfig>, secrets: z.infer<typeof vonageSecrets>, transport: SmsTransport): SmsSender {
  const url = `${baseUrlOf(config.baseUrl, 'https://rest.nexmo.com')}/sms/json`;
  return {
    async send({ to, text }) {
      const form = new URLSearchParams({
        api_key: secrets.apiKey,
        api_secret: secrets.apiSecret,
        from: config.from.replace(/^\+/, ''),
        to: to.replace(/^\+/, ''),
        text,
      });
      const res = await callVendor('vonage', url, form.toString(), { 'content-type': 'application/x-www-form-urlencoded' }, transport);
      const first = (parseJson(res.text)?.messages as Record<string, unknown>[] | undefined)?.[0];
      if (res.ok && first?.status === '0' && typeof first['message-id'] === 'string') return { messageId: first['message-id'] };
      const reason = first ? `${String(first['error-text'] ?? 'refused')} (status ${String(first.status)})` : excerpt(res.text);
      throw new SmsVendorError('vonage', `Vonage answered ${res.status}: ${reason}`, res.status);
    },
  };
}
