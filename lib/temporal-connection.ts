// How the service connects to Temporal beyond its address: mTLS (a client certificate and key, and the server's
// CA, from files) and a Temporal Cloud API key (which implies TLS). The same options go to the client
// (worker/temporal-gateway.ts) and to the worker's NativeConnection (worker/index.ts).
import fs from 'node:fs';
import type { Config } from './config.ts';

export interface TemporalConnectionOptions {
  tls?: true | { clientCertPair?: { crt: Buffer; key: Buffer }; serverRootCACertificate?: Buffer };
  apiKey?: string;
}

export function temporalConnectionOptions(config: Pick<Config, 'temporalTls' | 'temporalApiKey'>): TemporalConnectionOptions {
  const { cert, key, ca } = config.temporalTls;
  const files = {
    ...(cert && key ? { clientCertPair: { crt: fs.readFileSync(cert), key: fs.readFileSync(key) } } : {}),
    ...(ca ? { serverRootCACertificate: fs.readFileSync(ca) } : {}),
  };
  const tls = Object.keys(files).length > 0 ? files : config.temporalApiKey ? (true as const) : undefined;
  return { ...(tls ? { tls } : {}), ...(config.temporalApiKey ? { apiKey: config.temporalApiKey } : {}) };
}
