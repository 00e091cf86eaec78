// A local verifier speaking the bot-challenge vendors' siteverify shape: a form POST (`secret`, `response`,
// `remoteip`) to Turnstile's `/turnstile/v0/siteverify`, hCaptcha's `/siteverify` or reCAPTCHA's
// `/recaptcha/api/siteverify`, answered `{ success, "error-codes", challenge_ts, hostname }` as they document. A token
// passes once (the vendors refuse a replayed one: `timeout-or-duplicate`).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SiteverifyRequest {
  path: string;
  contentType: string | undefined;
  form: Record<string, string>;
}

export interface SiteverifyFake {
  url: string;
  requests: SiteverifyRequest[];
  /** Tokens that pass (once each). */
  accept(token: string): void;
  close(): Promise<void>;
}

const PATHS = new Set(['/turnstile/v0/siteverify', '/siteverify', '/recaptcha/api/siteverify']);

export async function startSiteverifyFake(secret: string): Promise<SiteverifyFake> {
  const passing = new Set<string>();
  const used = new Set<string>();
  const requests: SiteverifyRequest[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(raw));
      requests.push({ path: req.url ?? '', contentType: req.headers['content-type'], form });
      const answer = (status: number, body: object) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method !== 'POST' || !PATHS.has(req.url ?? '')) return answer(404, { success: false, 'error-codes': ['not-found'] });
      if (!form.secret) return answer(200, { success: false, 'error-codes': ['missing-input-secret'] });
      if (form.secret !== secret) return answer(200, { success: false, 'error-codes': ['invalid-input-secret'] });
      if (!form.response) return answer(200, { success: false, 'error-codes': ['missing-input-response'] });
      if (used.has(form.response)) return answer(200, { success: false, 'error-codes': ['timeout-or-duplicate'] });
      if (!passing.has(form.response)) return answer(200, { success: false, 'error-codes': ['invalid-input-response'] });
      used.add(form.response);
      return answer(200, { success: true, 'error-codes': [], challenge_ts: new Date().toISOString(), hostname: 'localhost' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    accept: (token) => passing.add(token),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
