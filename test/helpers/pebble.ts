// A Pebble (Let's Encrypt's ACME test server) of a test's own: its HTTPS certificate made with openssl for
// 127.0.0.1, its DNS resolver the test's DNS server, its HTTP-01 checks sent to the service's HTTP port. No
// PEBBLE_VA_ALWAYS_VALID: every challenge is really fetched from the service.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../scripts/temporal-cli.ts';

export interface TestPebble {
  directoryUrl: string;
  /** The PEM of the CA that signed Pebble's own HTTPS certificate (VANITY_ACME_CA_FILE). */
  caFile: string;
  /** The PEM of an issuing CA certificate, from the management interface: `roots/0` or `intermediates/0`. */
  management(path: string): Promise<string>;
  close(): Promise<void>;
}

export async function startPebble(options: { executable: string; dnsServer: string; httpPort: number; validitySeconds: number }): Promise<TestPebble> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pebble-'));
  const [cert, key] = [path.join(dir, 'cert.pem'), path.join(dir, 'key.pem')];
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '2'],
      ...['-keyout', key, '-out', cert, '-subj', '/CN=pebble', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
    ],
    { stdio: 'ignore' },
  );
  const [acmePort, managementPort] = [await freePort(), await freePort()];
  const config = {
    pebble: {
      listenAddress: `127.0.0.1:${acmePort}`,
      managementListenAddress: `127.0.0.1:${managementPort}`,
      certificate: cert,
      privateKey: key,
      httpPort: options.httpPort,
      tlsPort: await freePort(),
      ocspResponderURL: '',
      externalAccountBindingRequired: false,
      certificateValidityPeriod: options.validitySeconds,
    },
  };
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  const child = spawn(options.executable, ['-config', path.join(dir, 'config.json'), '-dnsserver', options.dnsServer], {
    env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const ca = fs.readFileSync(cert, 'utf8');
  const get = (url: string) =>
    new Promise<string>((resolve, reject) => {
      https
        .get(url, { ca }, (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => ((res.statusCode ?? 500) < 300 ? resolve(body) : reject(new Error(`${url}: ${res.statusCode} ${body}`))));
        })
        .on('error', reject);
    });
  const directoryUrl = `https://127.0.0.1:${acmePort}/dir`;
  for (let tries = 0; ; tries++) {
    if (
      await get(directoryUrl).then(
        () => true,
        () => false,
      )
    )
      break;
    if (tries > 100 || child.exitCode !== null) throw new Error(`Pebble did not start:\n${output}`);
    await sleep(100);
  }
  return {
    directoryUrl,
    caFile: cert,
    management: (p) => get(`https://127.0.0.1:${managementPort}/${p}`),
    close: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
