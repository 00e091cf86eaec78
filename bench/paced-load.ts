// Latency at a given rate, open loop: requests leave at evenly spaced moments (rate per second) over a pool of
// keep-alive connections, whether or not earlier ones have answered, and each latency runs from the moment the request
// was handed to the pool (a request waiting for a free connection counts that wait). autocannon's `overallRate` is no
// use for this: each connection sends its whole per-second quota at once and then idles until the next second, so
// "half load" is full load for half of each second, and its coordinated-omission correction at a 1 ms expected interval
// adds synthetic samples to every answer slower than 1 ms.
//
// The requests go out over plain keep-alive sockets, each request's bytes encoded once before the run, and the answers
// are read by a minimal HTTP/1.1 parser (status line, Content-Length or chunked body): at 8 000 requests a second an
// HTTP client library allocated enough per request that the generator's own collections and loop stalls (5–12 ms)
// set the p99 floor for the bare route and the service alike.
import net from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export type PacedOptions = {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Bodies sent in turn instead of `body` (a mix of requests). */
  bodies?: string[];
  connections: number;
  rate: number;
  duration: number;
};
export type PacedResult = {
  rps: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  non2xx: number;
  /** The generator's own state: its largest event-loop delay (ms), the most a request left after its moment (ms), the cores it used. */
  generator: { loopDelayMax: number; lateMax: number; cpu: number };
};

const round = (ms: number) => Math.round(ms * 100) / 100;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;

/** One keep-alive connection: at most one request in flight (no pipelining). */
interface Connection {
  socket: net.Socket;
  /** When the request in flight was handed to this connection; NaN when idle. */
  sentAt: number;
  /** Bytes of the answer read so far. */
  pending: Buffer | null;
}

const CRLF2 = Buffer.from('\r\n\r\n');

/**
 * Where the answer at the start of `data` ends (its byte length), or -1 while incomplete; `status` gets its status code
 * and whether the server closes the connection after it.
 */
function answerLength(data: Buffer, status: { code: number; close: boolean }): number {
  const head = data.indexOf(CRLF2);
  if (head < 0) return -1;
  const text = data.toString('latin1', 0, head).toLowerCase();
  status.code = Number(text.slice(9, 12));
  status.close = /\r\nconnection: *close/.test(text);
  const length = /\r\ncontent-length: *(\d+)/.exec(text);
  if (length) {
    const end = head + 4 + Number(length[1]);
    return data.length >= end ? end : -1;
  }
  if (!/\r\ntransfer-encoding: *chunked/.test(text)) return head + 4; // no body (204, 304)
  let at = head + 4;
  for (;;) {
    const line = data.indexOf('\r\n', at);
    if (line < 0) return -1;
    const size = parseInt(data.toString('latin1', at, line), 16);
    if (size === 0) return data.length >= line + 4 ? line + 4 : -1;
    at = line + 2 + size + 2;
    if (at > data.length) return -1;
  }
}

export async function pacedLoad(options: PacedOptions): Promise<PacedResult> {
  const url = new URL(options.url);
  const port = Number(url.port || 80);
  const headers = Object.entries({ host: url.host, ...options.headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  const requests = (options.bodies ?? [options.body]).map((body) =>
    body === undefined
      ? Buffer.from(`${options.method} ${url.pathname}${url.search} HTTP/1.1\r\n${headers}\r\n`)
      : Buffer.from(`${options.method} ${url.pathname}${url.search} HTTP/1.1\r\n${headers}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`),
  );
  const total = Math.floor(options.rate * options.duration);
  const interval = 1000 / options.rate;
  const latencies: number[] = [];
  let errors = 0;
  let non2xx = 0;
  let sentCount = 0;
  // Requests due while every connection is busy wait here (when each was handed over, and which body), first in first out.
  const waitingSince: number[] = [];
  const waitingBody: number[] = [];
  let waitingHead = 0;
  let outstanding = 0;
  let drained: (() => void) | undefined;
  const idle: Connection[] = [];
  let live = options.connections;
  const status = { code: 0, close: false };

  /** An idle connection takes the oldest waiting request, else waits for the next one. */
  const release = (connection: Connection) => {
    if (waitingHead < waitingSince.length) {
      const since = waitingSince[waitingHead]!;
      const which = waitingBody[waitingHead++]!;
      write(connection, since, which);
    } else idle.push(connection);
  };
  const settle = (connection: Connection) => {
    if (--outstanding === 0) drained?.();
    release(connection);
  };
  const write = (connection: Connection, since: number, which: number) => {
    connection.sentAt = since;
    connection.socket.write(requests[which]!);
  };
  const open = (): Promise<Connection> =>
    new Promise((resolve, reject) => {
      const socket = net.connect({ host: url.hostname, port, noDelay: true });
      const connection: Connection = { socket, sentAt: NaN, pending: null };
      let connected = false;
      socket.once('connect', () => {
        connected = true;
        resolve(connection);
      });
      socket.once('error', reject);
      socket.on('data', (chunk: Buffer) => {
        let data = connection.pending ? Buffer.concat([connection.pending, chunk]) : chunk;
        for (;;) {
          const end = answerLength(data, status);
          if (end < 0) break;
          if (!Number.isNaN(connection.sentAt)) {
            latencies.push(performance.now() - connection.sentAt);
            connection.sentAt = NaN;
            if (status.code < 200 || status.code >= 300) non2xx++;
            // A connection the server closes after this answer is replaced when it closes (below), not reused.
            if (status.close) {
              if (--outstanding === 0) drained?.();
            } else settle(connection);
          }
          data = data.subarray(end);
          if (data.length === 0) break;
        }
        connection.pending = data.length > 0 ? data : null;
      });
      // A connection that fails or is closed by the server counts its request as an error and is replaced.
      const lost = () => {
        if (!connected || connection.socket !== socket) return;
        const inFlight = !Number.isNaN(connection.sentAt);
        connection.pending = null;
        const at = idle.indexOf(connection);
        if (at >= 0) idle.splice(at, 1);
        if (inFlight) errors++;
        open().then(
          (fresh) => {
            if (inFlight) settle(fresh);
            else release(fresh);
          },
          () => {
            // One connection fewer; with none left, what waits and what is still to be sent can only fail.
            live--;
            const failed = (inFlight ? 1 : 0) + (live === 0 ? waitingSince.length - waitingHead : 0);
            if (live === 0) waitingHead = waitingSince.length;
            errors += failed - (inFlight ? 1 : 0);
            outstanding -= failed;
            if (failed > 0 && outstanding === 0) drained?.();
          },
        );
        connection.socket = null as unknown as net.Socket;
      };
      socket.on('error', lost);
      socket.on('close', lost);
    });
  idle.push(...(await Promise.all(Array.from({ length: options.connections }, open))));

  const send = () => {
    const which = sentCount++ % requests.length;
    const since = performance.now();
    if (live === 0) return void errors++;
    outstanding++;
    const connection = idle.pop();
    if (connection) write(connection, since, which);
    else {
      waitingSince.push(since);
      waitingBody.push(which);
    }
  };
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const cpuBefore = process.cpuUsage();
  let lateMax = 0;
  const started = performance.now();
  await new Promise<void>((resolve) => {
    let due = 0;
    const tick = () => {
      const now = performance.now();
      while (due < total && started + due * interval <= now) {
        lateMax = Math.max(lateMax, now - (started + due * interval));
        send();
        due++;
      }
      if (due < total) setTimeout(tick, Math.max(0, started + due * interval - performance.now()));
      else resolve();
    };
    tick();
  });
  if (outstanding > 0) await new Promise<void>((resolve) => (drained = resolve));
  const seconds = (performance.now() - started) / 1000;
  delay.disable();
  const cpu = process.cpuUsage(cpuBefore);
  for (const connection of idle) {
    connection.socket.removeAllListeners('close');
    connection.socket.destroy();
  }
  latencies.sort((a, b) => a - b);
  return {
    rps: Math.round(latencies.length / seconds),
    p50: round(percentile(latencies, 50)),
    p99: round(percentile(latencies, 99)),
    max: round(latencies.at(-1) ?? 0),
    errors,
    non2xx,
    generator: { loopDelayMax: round(delay.max / 1e6), lateMax: round(lateMax), cpu: round((cpu.user + cpu.system) / 1e6 / seconds) },
  };
}
