// Temporal Cloud and mTLS servers: the certificate files and API key of the configuration become the TLS and
// apiKey options that both the client (gateway) and the worker's NativeConnection connect with.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.ts';
import { temporalConnectionOptions } from '../../lib/temporal-connection.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-tls-'));
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
};
const cert = file('client.pem', '-----BEGIN CERTIFICATE-----\ncert\n-----END CERTIFICATE-----\n');
const key = file('client.key', '-----BEGIN PRIVATE KEY-----\nkey\n-----END PRIVATE KEY-----\n');
const ca = file('ca.pem', '-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the Temporal connection', () => {
  it('is plain without TLS settings or an API key', () => {
    expect(temporalConnectionOptions(loadConfig({ TEMPORAL_ADDRESS: 'temporal:7233' }))).toEqual({});
  });

  it('uses mTLS with the client certificate, its key and the server CA read from their files', () => {
    const config = loadConfig({ TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', TEMPORAL_TLS_CERT: cert, TEMPORAL_TLS_KEY: key, TEMPORAL_TLS_CA: ca });
    expect(temporalConnectionOptions(config)).toEqual({
      tls: { clientCertPair: { crt: fs.readFileSync(cert), key: fs.readFileSync(key) }, serverRootCACertificate: fs.readFileSync(ca) },
    });
    expect(temporalConnectionOptions(loadConfig({ TEMPORAL_TLS_CA: ca }))).toEqual({ tls: { serverRootCACertificate: fs.readFileSync(ca) } });
  });

  it('sends a Temporal Cloud API key over TLS', () => {
    expect(temporalConnectionOptions(loadConfig({ TEMPORAL_API_KEY: 'tcak-secret' }))).toEqual({ tls: true, apiKey: 'tcak-secret' });
  });

  it.each([
    [
      { TEMPORAL_TLS_CERT: '/nonexistent/client.pem' },
      /^Invalid configuration: TEMPORAL_TLS_CERT must be the path of an existing file \(got "\/nonexistent\/client.pem"\)$/,
    ],
    [{ TEMPORAL_TLS_CA: dir }, /^Invalid configuration: TEMPORAL_TLS_CA must be the path of an existing file/],
    [{ TEMPORAL_TLS_CERT: cert }, /^Invalid configuration: TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together/],
    [{ TEMPORAL_TLS_KEY: key }, /^Invalid configuration: TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together/],
  ])('refuses %o with one line naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('never prints the API key or the key path in a configuration error', () => {
    expect(() => loadConfig({ TEMPORAL_API_KEY: 'tcak-secret', TEMPORAL_TLS_KEY: '/nonexistent/key' })).toThrow(
      /^Invalid configuration: TEMPORAL_TLS_KEY must be the path of an existing file$/,
    );
  });
});
