// The receiver of the webhook benchmark: answers 200 at once and records, per path, the first arrival of
// each event id (wall-clock ms), the duplicates, the requests and the client sockets used.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sleep, wall } from './util.ts';

export interface Receiver {
  url: string;
  /** First arrival (wall-clock ms) of each event id on a path. */
  arrivals(route: string): Map<string, number>;
  duplicates(route: string): number;
  requests(route: string): number;
  /** Distinct client sockets (remote ports) seen on a path since the last reset. */
  sockets(route: string): number;
  /** Forgets the counts of a path (duplicates, requests, sockets); the arrivals are kept. */
  reset(route: string): void;
  /** Until every id has arrived on a path; false on timeout. */
  waitFor(route: string, ids: string[], timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export function startReceiver(): Promise<Receiver> {
  const first = new Map<string, Map<string, number>>();
  const duplicates = new Map<string, number>();
  const requests = new Map<string, number>();
  const sockets = new Map<string, Set<string>>();
  let waiters: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const at = wall();
    const route = req.url ?? '/';
    const id = String(req.headers['x-service-event-id'] ?? '');
    requests.set(route, (requests.get(route) ?? 0) + 1);
    const seen = first.get(route) ?? first.set(route, new Map()).get(route)!;
    if (seen.has(id)) duplicates.set(route, (duplicates.get(route) ?? 0) + 1);
    else seen.set(id, at);
    (sockets.get(route) ?? sockets.set(route, new Set()).get(route)!).add(`${req.socket.remotePort}`);
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
    const ready = waiters;
    waiters = [];
    for (const w of ready) w();
  });
  server.keepAliveTimeout = 60_000;
  const arrivals = (route: string) => first.get(route) ?? new Map<string, number>();
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        arrivals,
        duplicates: (route) => duplicates.get(route) ?? 0,
        requests: (route) => requests.get(route) ?? 0,
        sockets: (route) => sockets.get(route)?.size ?? 0,
        reset: (route) => {
          duplicates.delete(route);
          requests.delete(route);
          sockets.delete(route);
        },
        waitFor: async (route, ids, timeoutMs) => {
          const deadline = performance.now() + timeoutMs;
          let missing = 0; // arrivals are never forgotten: ids before this one have all arrived
          for (;;) {
            const got = arrivals(route);
            while (missing < ids.length && got.has(ids[missing]!)) missing++;
            if (missing === ids.length) return true;
            const remaining = deadline - performance.now();
            if (remaining <= 0) return false;
            await Promise.race([new Promise<void>((r) => waiters.push(r)), sleep(Math.min(remaining, 200))]);
          }
        },
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      }),
    ),
  );
}
