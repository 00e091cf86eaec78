// A real local HTTP receiver for deliveries: records every request with its raw bytes, and answers
// each one as the test scripts it (a status, a hang past the sender's timeout), defaulting to 200.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Answer = number | 'hang' | { status: number; headers?: Record<string, string>; body?: string };

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Answers for the next requests to `path`, in order; afterwards every request gets 200. */
  script(path: string, ...answers: Answer[]): void;
  /** Drops the answers still scripted for `path`, and the requests recorded so far. */
  reset(path: string): void;
  /** Stops listening (connections are refused) until `up()`. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const received: Received[] = [];
  const answers = new Map<string, Answer[]>();
  const hanging = new Set<http.ServerResponse>();
  const handler: http.RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const answer = answers.get(req.url ?? '')?.shift() ?? 200;
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      const { status, headers = {}, body = 'ok' } = typeof answer === 'number' ? { status: answer } : answer;
      res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(body);
    });
  };
  let server = http.createServer(handler);
  const listen = (p: number) => new Promise<number>((resolve) => server.listen(p, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const res of hanging) res.destroy();
      hanging.clear();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  const boundPort = await listen(port);
  return {
    url: `http://127.0.0.1:${boundPort}`,
    port: boundPort,
    received,
    script: (path, ...a) => answers.set(path, [...(answers.get(path) ?? []), ...a]),
    reset: (path) => {
      answers.delete(path);
      received.splice(0, received.length, ...received.filter((r) => r.path !== path));
    },
    down: stop,
    up: async () => {
      server = http.createServer(handler);
      await listen(boundPort);
    },
    close: stop,
  };
}
