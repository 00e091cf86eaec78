// Twilio's Messages API as documented: POST /2010-04-01/Accounts/{AccountSid}/Messages.json, HTTP Basic
// AccountSid:AuthToken, form-encoded To, From or MessagingServiceSid, Body. 201 with `sid`; errors `{ code, message, status }`.
import { form, hex, json, startVendorFake } from './sms-server.ts';

/** Numbers Twilio refuses as `To`, with error 21211. */
export const TWILIO_INVALID_TO = '+15005550001';

export function startTwilioFake(account: { accountSid: string; authToken: string }) {
  return startVendorFake((req) => {
    if (req.method !== 'POST' || req.path !== `/2010-04-01/Accounts/${account.accountSid}/Messages.json`) {
      return json(404, { code: 20404, message: 'The requested resource was not found', status: 404 });
    }
    const basic = `Basic ${Buffer.from(`${account.accountSid}:${account.authToken}`).toString('base64')}`;
    if (req.headers.authorization !== basic) return json(401, { code: 20003, message: 'Authenticate', status: 401 });
    if (!req.headers['content-type']?.startsWith('application/x-www-form-urlencoded')) {
      return json(400, { code: 20001, message: 'Unsupported content type', status: 400 });
    }
    const f = form(req);
    if (!f.To || !f.Body) return json(400, { code: 21604, message: "A 'To' phone number and a 'Body' are required.", status: 400 });
    if (!f.From === !f.MessagingServiceSid) return json(400, { code: 21603, message: "A 'From' or 'MessagingServiceSid' parameter is required.", status: 400 });
    if (f.To === TWILIO_INVALID_TO) return json(400, { code: 21211, message: `The 'To' number ${f.To} is not a valid phone number.`, status: 400 });
    return json(201, { sid: `SM${hex(32)}`, status: 'queued', to: f.To, from: f.From ?? null, body: f.Body, account_sid: account.accountSid });
  });
}
