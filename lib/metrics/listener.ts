// METRICS_PORT (the API) and WORKER_METRICS_PORT (the Temporal worker): a listener of its own answering `GET /metrics`
// without a token (and 404 to anything else), so a Prometheus on a private network scrapes without a credential while
// the API's main port keeps `metrics:read`.
// node:http is taken with getBuiltinModule: an ESM import of it makes Node load its bundled undici (for http's
// WebSocket exports), about 2 MB of heap the process has no other use for.
const http = process.getBuiltinModule('node:http');

/** Prometheus' text exposition format, version 0.0.4. */
export const EXPOSITION_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export async function startMetricsListener(metrics: { render(): Promise<string> }, address: { host: string; port: number }, onError: (error: unknown) => void) {
  const server = http.createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    metrics.render().then(
      (text) => response.writeHead(200, { 'content-type': EXPOSITION_TYPE }).end(text),
      (error: unknown) => {
        onError(error);
        response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => resolve());
  });
  return { close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
