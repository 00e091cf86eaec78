// The HTTPS listener of vanity domains (HTTPS_PORT): TLS terminated here with the certificate of the host the client
// names (SNI), from the certificate store; the requests go to the same Fastify app as the HTTP listener's. A client
// naming no host, or a host without an active certificate, fails the handshake.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { App } from '../types.ts';

export interface VanityHttps {
  port: number;
  close(): Promise<void>;
}

export async function startVanityHttps(app: App, options: { host: string; port: number }): Promise<VanityHttps> {
  const server = https.createServer({
    SNICallback: (servername, callback) => {
      app.vanity.served(servername).then(
        (served) => (served ? callback(null, served.context) : callback(new Error(`no certificate for ${servername}`))),
        (error: unknown) => callback(error as Error),
      );
    },
  });
  server.on('request', (req, res) => app.routing(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
