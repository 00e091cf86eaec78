// A local vendor speaking the two forwarding add-ons' APIs:
// - Segment's HTTP Tracking API batch endpoint `POST /v1/batch`: HTTP basic auth with the write key as user and no
//   password; body `{ batch: [{ type: identify|track|…, userId or anonymousId, messageId, … }] }`; 200 `{ success: true }`,
//   401 for another key, 400 for a malformed batch;
// - PostHog's `POST /batch/`: body `{ api_key, batch: [{ event, distinct_id, … }] }`; 200 `{ status: 1 }`, 401
//   `{ type: 'authentication_error', code: 'invalid_api_key' }` for another key, 400 for a malformed batch.
// Every request is recorded (auth header and parsed body); `failNext` makes the next requests answer a status, as a vendor
// having an outage would.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

type Json = Record<string, unknown>;

export interface VendorRequest {
  path: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: Json;
}

export interface AnalyticsFake {
  url: string;
  requests: VendorRequest[];
  /** The next `count` requests (to `path`, if given) answer `status`, with a `Retry-After` if given (after being recorded). */
  failNext(count: number, status: number, options?: { path?: string; retryAfterSeconds?: number }): void;
  close(): Promise<void>;
}

const segmentOk = (m: Json) =>
  typeof m.type === 'string' && (typeof m.userId === 'string' || typeof m.anonymousId === 'string') && (m.type !== 'track' || typeof m.event === 'string');
const posthogOk = (m: Json) => typeof m.event === 'string' && typeof m.distinct_id === 'string';

export async function startAnalyticsFake(keys: { writeKey: string; apiKey: string }): Promise<AnalyticsFake> {
  const requests: VendorRequest[] = [];
  const failures: { status: number; path?: string | undefined; retryAfterSeconds?: number | undefined }[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      const answer = (status: number, body: object) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      let body: Json = {};
      try {
        body = JSON.parse(raw) as Json;
      } catch {
        return answer(400, { error: 'invalid JSON' });
      }
      requests.push({ path: req.url ?? '', authorization: req.headers.authorization, contentType: req.headers['content-type'], body });
      const at = failures.findIndex((f) => f.path === undefined || f.path === req.url);
      if (at >= 0) {
        const [{ status, retryAfterSeconds }] = failures.splice(at, 1) as [(typeof failures)[number]];
        const retryAfter = retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) };
        return res.writeHead(status, { 'content-type': 'application/json', ...retryAfter }).end(JSON.stringify({ error: 'scripted outage' }));
      }
      const batch = Array.isArray(body.batch) ? (body.batch as Json[]) : null;
      if (req.method === 'POST' && req.url === '/v1/batch') {
        if (req.headers.authorization !== `Basic ${Buffer.from(`${keys.writeKey}:`).toString('base64')}`) return answer(401, { error: 'invalid write key' });
        if (!batch?.every(segmentOk)) return answer(400, { error: 'invalid batch' });
        return answer(200, { success: true });
      }
      if (req.method === 'POST' && req.url === '/batch/') {
        if (body.api_key !== keys.apiKey) return answer(401, { type: 'authentication_error', code: 'invalid_api_key' });
        if (!batch?.every(posthogOk)) return answer(400, { type: 'validation_error', code: 'invalid_payload' });
        return answer(200, { status: 1 });
      }
      return answer(404, { error: 'not found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext: (count, status, options = {}) => {
      for (let i = 0; i < count; i++) failures.push({ status, ...options });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
