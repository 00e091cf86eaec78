// A local HTTP server standing in for an SMS vendor: records each request and answers through the vendor's handler,
// which checks the request the way the vendor documents it and replies with the vendor's own shapes.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface VendorRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface VendorAnswer {
  status: number;
  body: string;
  contentType?: string;
}

export interface VendorFake {
  url: string;
  received: VendorRequest[];
  close(): Promise<void>;
}

export async function startVendorFake(answer: (req: VendorRequest) => VendorAnswer): Promise<VendorFake> {
  const received: VendorRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(request);
      const { status, body, contentType = 'application/json' } = answer(request);
      res.writeHead(status, { 'content-type': contentType }).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const json = (status: number, value: unknown): VendorAnswer => ({ status, body: JSON.stringify(value) });
export const form = (req: VendorRequest) => Object.fromEntries(new URLSearchParams(req.body));
export const hex = (n: number) => Array.from({ length: n }, (_, i) => '0123456789abcdef'[(i * 7 + n) % 16]).join('');
