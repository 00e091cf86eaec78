// api/families/oidc/provider/peek-body.ts against a real HTTP server: the body it peeks is left whole for the next
// reader, however it arrives, and it reads nothing it does not look at.
import http, { type IncomingMessage } from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peekBody } from '../../api/families/oidc/provider/peek-body.ts';

const MAX = 64;
let server: http.Server;
let port: number;
/** What the server saw of a request: the peeked body (null: not looked at), then the body read in full afterwards. */
interface Seen {
  peeked: string | undefined | null;
  read: string;
}
const waiting: ((seen: Promise<Seen>) => void)[] = [];
/** What the server will see of the next request (called before sending it). */
const next = () => new Promise<Seen>((resolve) => waiting.push(resolve));

beforeAll(async () => {
  server = http.createServer();
  server.on('request', (req: IncomingMessage, res) => {
    waiting.shift()!(
      (async () => {
        const peeking = peekBody(req, MAX);
        const peeked = peeking === undefined ? null : ((await peeking)?.toString() ?? undefined);
        const chunks: Buffer[] = [];
        try {
          for await (const chunk of req) chunks.push(chunk as Buffer);
        } catch {
          // an aborted request: what was read so far
        }
        res.end('ok');
        return { peeked, read: Buffer.concat(chunks).toString() };
      })(),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sends `parts` as they are, one write each, waiting for the server to have read what came before the last. */
async function send(head: string, parts: string[]) {
  const socket = net.connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.write(head);
  for (const part of parts) {
    await new Promise((resolve) => setImmediate(resolve));
    socket.write(part);
  }
  return socket;
}
const post = (headers: string) => `POST / HTTP/1.1\r\nhost: x\r\n${headers}\r\n`;

describe('peekBody', () => {
  it('returns a body that arrives in pieces, and leaves all of it for the next reader', async () => {
    const seen = next();
    const socket = await send(post('content-length: 11\r\n'), ['hello', ' ', 'world']);
    expect(await seen).toEqual({ peeked: 'hello world', read: 'hello world' });
    socket.destroy();
  });

  it('reads nothing of a chunked body or one above the limit, and does not hold it back', async () => {
    let seen = next();
    const chunked = await send(post('transfer-encoding: chunked\r\n'), ['5\r\nhello\r\n', '0\r\n\r\n']);
    expect(await seen).toEqual({ peeked: null, read: 'hello' });
    chunked.destroy();
    const large = 'x'.repeat(MAX + 1);
    seen = next();
    const big = await send(post(`content-length: ${large.length}\r\n`), [large]);
    expect(await seen).toEqual({ peeked: null, read: large });
    big.destroy();
  });

  it('gives up on a request that ends before its announced length', async () => {
    const seen = next();
    const socket = await send(post('content-length: 10\r\n'), ['short']);
    await new Promise((resolve) => setImmediate(resolve));
    socket.destroy();
    const { peeked } = await seen;
    expect(peeked).toBeUndefined();
  });
});
