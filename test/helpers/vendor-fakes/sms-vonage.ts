// Vonage's SMS API as documented: POST /sms/json with api_key, api_secret, from, to (digits, no '+') and text.
// Always HTTP 200: `messages[0].status` "0" with `message-id`, or another status with `error-text`.
import { form, hex, json, startVendorFake } from './sms-server.ts';

const answer = (message: Record<string, string>) => json(200, { 'message-count': '1', messages: [message] });

export function startVonageFake(account: { apiKey: string; apiSecret: string }) {
  return startVendorFake((req) => {
    if (req.method !== 'POST' || req.path !== '/sms/json') return json(404, { type: 'not found' });
    const f = form(req);
    if (f.api_key !== account.apiKey || f.api_secret !== account.apiSecret) return answer({ status: '4', 'error-text': 'Bad Credentials' });
    if (!f.from || !f.text) return answer({ status: '2', 'error-text': 'Missing from param' });
    if (!/^\d{7,15}$/.test(f.to ?? '')) return answer({ status: '3', 'error-text': 'Invalid to param' });
    return answer({ to: f.to!, 'message-id': hex(16).toUpperCase(), status: '0', 'remaining-balance': '3.14', 'message-price': '0.03', network: '12345' });
  });
}
