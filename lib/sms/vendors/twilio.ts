// Twilio Programmable Messaging: POST /2010-04-01/Accounts/{AccountSid}/Messages.json, form-encoded `To`, `From` or
// `MessagingServiceSid`, `Body`, HTTP Basic AccountSid:AuthToken. 201 `{ sid }`; errors `{ code, message, more_info }`.
import { z } from 'zod';
import { allowedCountries, e164 } from '../phone.ts';
import { baseUrlOf, callVendor, excerpt, parseJson, SmsVendorError, type SmsSender, type SmsTransport } from '../vendor-call.ts';

export const twilioConfig = z
  .strictObject({
    accountSid: z.string().regex(/^AC[0-9a-fA-F]{32}$/, 'must be a Twilio Account SID (AC and 32 hex digits)'),
    from: e164.optional(),
    messagingServiceSid: z
      .string()
      .regex(/^MG[0-9a-fA-F]{32}$/, 'must be a Twilio Messaging Service SID (MG and 32 hex digits)')
      .optional(),
    baseUrl: z.url().optional(),
    allowedCountries: allowedCountries.optional(),
  })
  .superRefine((c, ctx) => {
    if (!c.from && !c.messagingServiceSid) ctx.addIssue({ code: 'custom', path: ['from'], message: 'is required (or messagingServiceSid)' });
    if (c.from && c.messagingServiceSid) ctx.addIssue({ code: 'custom', path: ['messagingServiceSid'], message: 'cannot be given with from' });
  });
export const twilioSecrets = z.strictObject({ authToken: z.string().min(1) });

export function twilioSender(config: z.infer<typeof twilioConfig>, secrets: z.infer<typeof twilioSecrets>, transport: SmsTransport): SmsSender {
  const url = `${baseUrlOf(config.baseUrl, 'https://api.twilio.com')}/2010-04-01/Accounts/${config.accountSid}/Messages.json`;
  const basic = Buffer.from(`${config.accountSid}:${secrets.authToken}`).toString('base64');
  return {
    async send({ to, text }) {
      const form = new URLSearchParams({ To: to, ...(config.from ? { From: config.from } : { MessagingServiceSid: config.messagingServiceSid! }), Body: text });
      const res = await callVendor(
        'twilio',
        url,
        form.toString(),
        { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
        transport,
      );
      const json = parseJson(res.text);
      if (res.ok && typeof json?.sid === 'string') return { messageId: json.sid };
      const reason = typeof json?.message === 'string' ? `${json.message}${json.code ? ` (code ${String(json.code)})` : ''}` : excerpt(res.text);
      throw new SmsVendorError('twilio', `Twilio answered ${res.status}: ${reason}`, res.status);
    },
  };
}
