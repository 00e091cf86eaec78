// Reads a small request body without consuming it: the bytes go back to the front of the stream (`readable.unshift`,
// which Node documents for code that has to look at data before handing the stream on), so whoever reads the request
// next (here oidc-provider, from the raw stream) sees it whole.
import type { IncomingMessage } from 'node:http';

/**
 * The body a `content-length` of 1 to `max` bytes announces, once it has arrived, left unread in `req`. Undefined,
 * without reading anything, for a chunked body or one outside those bounds; undefined too when the request ends or
 * fails before that many bytes came (what did arrive is put back).
 */
export function peekBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> | undefined {
  const length = Number(req.headers['content-length']);
  if (req.headers['transfer-encoding'] !== undefined || !Number.isInteger(length) || length < 1 || length > max) return undefined;
  return new Promise((resolve) => {
    const done = (body: Buffer | undefined) => {
      req.off('readable', attempt);
      req.off('end', gone);
      req.off('close', gone);
      req.off('error', gone);
      resolve(body);
    };
    const gone = () => done(undefined);
    function attempt() {
      // read(n) gives exactly n bytes once they are buffered, and less only when the stream has ended.
      const chunk = req.read(length) as Buffer | null;
      if (chunk === null) return;
      req.unshift(chunk);
      done(chunk.length === length ? chunk : undefined);
    }
    req.on('readable', attempt);
    req.on('end', gone);
    req.on('close', gone);
    req.on('error', gone);
  });
}
