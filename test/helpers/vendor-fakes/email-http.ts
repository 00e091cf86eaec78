// Local HTTP fakes of the email vendors' APIs. Each checks the request the vendor documents (path, auth header, JSON
// body; SES: the SigV4 signature, recomputed) and answers as the vendor does, ids and error bodies included.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import aws4 from 'aws4';

export type EmailVendor = 'resend' | 'sendgrid' | 'postmark' | 'ses';

export interface VendorRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  json: Record<string, unknown>;
}

export interface VendorFake {
  url: string;
  requests: VendorRequest[];
  /** When set, the vendor refuses the next messages (a sender it does not know), as it documents. */
  refuse: boolean;
  /** The message id of the last message the fake accepted. */
  lastId: string | null;
  close(): Promise<void>;
}

type Answer = { status: number; headers?: Record<string, string>; body?: unknown };

/** The credentials a fake accepts: an API key, a Postmark server token, or an AWS key pair and region. */
export interface FakeCredentials {
  key: string;
  secretAccessKey?: string;
  region?: string;
}

const PATHS: Record<EmailVendor, string> = { resend: '/emails', sendgrid: '/v3/mail/send', postmark: '/email', ses: '/v2/email/outbound-emails' };

function authorized(vendor: EmailVendor, req: VendorRequest, raw: string, creds: FakeCredentials): boolean {
  if (vendor === 'postmark') return req.headers['x-postmark-server-token'] === creds.key;
  if (vendor !== 'ses') return req.headers.authorization === `Bearer ${creds.key}`;
  // Sign the same request again with the known secret and the request's own date: the signatures must agree.
  const resigned = aws4.sign(
    {
      host: req.headers.host,
      path: req.path,
      method: 'POST',
      service: 'ses',
      region: creds.region,
      headers: { 'content-type': String(req.headers['content-type']), 'X-Amz-Date': String(req.headers['x-amz-date']) },
      body: raw,
    },
    { accessKeyId: creds.key, secretAccessKey: creds.secretAccessKey! },
  );
  return req.headers.authorization === resigned.headers!.Authorization;
}

const ANSWERS: Record<EmailVendor, { ok: (id: string, to: string) => Answer; unauthorized: Answer; refused: Answer }> = {
  resend: {
    ok: (id) => ({ status: 200, body: { id } }),
    unauthorized: { status: 401, body: { statusCode: 401, name: 'validation_error', message: 'API key is invalid' } },
    refused: {
      status: 403,
      body: {
        statusCode: 403,
        name: 'validation_error',
        message: 'The example.com domain is not verified. Please, add and verify your domain on https://resend.com/domains',
      },
    },
  },
  sendgrid: {
    ok: (id) => ({ status: 202, headers: { 'x-message-id': id } }),
    unauthorized: { status: 401, body: { errors: [{ message: 'The provided authorization grant is invalid, expired, or revoked', field: null, help: null }] } },
    refused: {
      status: 403,
      body: { errors: [{ message: 'The from address does not match a verified Sender Identity.', field: 'from', help: null }] },
    },
  },
  postmark: {
    ok: (id, to) => ({ status: 200, body: { To: to, SubmittedAt: new Date().toISOString(), MessageID: id, ErrorCode: 0, Message: 'OK' } }),
    unauthorized: { status: 401, body: { ErrorCode: 10, Message: 'The Server Token you provided in the X-Postmark-Server-Token request header was invalid.' } },
    refused: {
      status: 422,
      body: { ErrorCode: 400, Message: "The 'From' address you supplied (noreply@example.com) is not a Sender Signature on your account." },
    },
  },
  ses: {
    ok: (id) => ({ status: 200, body: { MessageId: id } }),
    unauthorized: {
      status: 403,
      headers: { 'x-amzn-errortype': 'SignatureDoesNotMatch' },
      body: { message: 'The request signature we calculated does not match the signature you provided.' },
    },
    refused: {
      status: 400,
      headers: { 'x-amzn-errortype': 'MessageRejected' },
      body: { message: 'Email address is not verified. The following identities failed the check in region EU-WEST-1: noreply@example.com' },
    },
  },
};

export async function startVendorFake(vendor: EmailVendor, creds: FakeCredentials): Promise<VendorFake> {
  let n = 0;
  const fake: VendorFake = { url: '', requests: [], refuse: false, lastId: null, close: () => new Promise((resolve) => server.close(() => resolve())) };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const request: VendorRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, json: JSON.parse(raw || '{}') };
      fake.requests.push(request);
      const answers = ANSWERS[vendor];
      const to = JSON.stringify(request.json).match(/"[^"]*@[^"]*"/)?.[0] ?? '';
      const answer: Answer =
        request.method !== 'POST' || request.path !== PATHS[vendor] || !String(req.headers['content-type']).startsWith('application/json')
          ? { status: 404, body: { message: 'Not found' } }
          : !authorized(vendor, request, raw, creds)
            ? answers.unauthorized
            : fake.refuse
              ? answers.refused
              : answers.ok((fake.lastId = `${vendor}-msg-${++n}`), to.slice(1, -1));
      res.writeHead(answer.status, { ...(answer.body !== undefined ? { 'content-type': 'application/json' } : {}), ...answer.headers });
      res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
