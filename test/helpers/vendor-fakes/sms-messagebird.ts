// MessageBird's SMS API as documented: POST /messages, `Authorization: AccessKey <key>`, JSON `{ originator,
// recipients, body }`. 201 with `id`; errors `{ errors: [{ code, description, parameter }] }`.
import { hex, json, startVendorFake } from './sms-server.ts';

export function startMessagebirdFake(accessKey: string) {
  return startVendorFake((req) => {
    if (req.method !== 'POST' || req.path !== '/messages') return json(404, { errors: [{ code: 20, description: 'message not found', parameter: null }] });
    if (req.headers.authorization !== `AccessKey ${accessKey}`) {
      return json(401, { errors: [{ code: 2, description: 'Request not allowed (incorrect access_key)', parameter: 'access_key' }] });
    }
    if (req.headers['content-type'] !== 'application/json') return json(400, { errors: [{ code: 9, description: 'JSON body expected', parameter: null }] });
    const body = JSON.parse(req.body) as { originator?: string; recipients?: unknown; body?: string };
    for (const name of ['originator', 'recipients', 'body'] as const) {
      if (!body[name]) return json(422, { errors: [{ code: 9, description: `no (correct) ${name} given`, parameter: name }] });
    }
    return json(201, { id: hex(32), originator: body.originator, body: body.body, recipients: { totalCount: 1, items: body.recipients } });
  });
}
