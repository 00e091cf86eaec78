// A vanity domain end to end, on both engines, against real local servers: the DNS test server, Pebble (ACME) fetching
// the HTTP-01 answer from the service's HTTP listener, then a TLS handshake with SNI to the service's HTTPS listener
// and the environment's discovery on the vanity host; a restart while DNS is polled, a renewal (a short
// renew-before), and a removal that revokes the certificate at the CA.
import { randomUUID, X509Certificate } from 'node:crypto';
import https from 'node:https';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { freePort } from '../../scripts/temporal-cli.ts';
import { startVanityHttps, type VanityHttps } from '../../api/vanity/https-listener.ts';
import { bearer } from '../helpers/app.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { tenantEvents } from '../helpers/events.ts';
import { startPebble, type TestPebble } from '../helpers/pebble.ts';
import { ENGINES, startTestAppWithProcesses, type TestAppWithProcesses } from '../helpers/processes.ts';

const pebbleExecutable = inject('pebble');
const VALIDITY_S = 120;
const CNAME_TARGET = 'edge.iam-service.example.net';

let dns: TestDnsServer;
beforeAll(async () => {
  dns = await startDnsServer();
});
afterAll(async () => {
  await dns?.close();
});

/** A TLS handshake naming `servername`: the chain the service presents (or the error). */
function handshake(port: number, servername: string, ca: string[]) {
  return new Promise<tls.DetailedPeerCertificate>((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername, ca }, () => {
      const chain = socket.getPeerCertificate(true);
      socket.end();
      resolve(chain);
    });
    socket.on('error', reject);
  });
}

function httpsJson(port: number, hostname: string, path: string, ca: string[]) {
  return new Promise<Record<string, unknown>>((resolve, reject) => {
    https
      .get({ host: '127.0.0.1', port, servername: hostname, headers: { host: hostname }, path, ca }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve(JSON.parse(body) as Record<string, unknown>));
      })
      .on('error', reject);
  });
}

describe.skipIf(!pebbleExecutable).each(ENGINES)('vanity domain process (%s)', (engine) => {
  let t: TestAppWithProcesses;
  let pebble: TestPebble;
  let tlsListener: VanityHttps;
  let token: string;
  beforeAll(async () => {
    const httpPort = await freePort();
    pebble = await startPebble({ executable: pebbleExecutable!, dnsServer: dns.address, httpPort, validitySeconds: VALIDITY_S });
    t = await startTestAppWithProcesses({
      engine,
      env: {
        DNS_SERVERS: dns.address,
        VANITY_CNAME_TARGET: CNAME_TARGET,
        VANITY_ACME_DIRECTORY_URL: pebble.directoryUrl,
        VANITY_ACME_CA_FILE: pebble.caFile,
        VANITY_DNS_INTERVAL: '200ms',
        VANITY_DNS_GIVE_UP: '10m',
        // Certificates last 120 s here: each is renewed about 6 s after it is issued.
        VANITY_RENEW_BEFORE: `${VALIDITY_S - 6}s`,
      },
    });
    await t.app.listen({ host: '127.0.0.1', port: httpPort });
    tlsListener = await startVanityHttps(t.app, { host: '127.0.0.1', port: 0 });
    token = await t.token();
  }, 60_000);
  afterAll(async () => {
    await tlsListener?.close();
    await t?.close();
    await pebble?.close();
  });

  it(
    'waits for DNS across a restart, gets a certificate from the CA, serves it by SNI with the vanity issuer, renews it and revokes it on removal',
    { timeout: 120_000 },
    async () => {
      const { tenantId, environmentId } = t.credentials;
      const base = `/v1/tenants/${tenantId}/environments/${environmentId}/vanity-domains`;
      const hostname = `login-${randomUUID().slice(0, 8)}.example.org`;
      const created = await t.app.inject({ method: 'POST', url: base, headers: bearer(token), payload: { hostname } });
      expect(created.statusCode).toBe(201);
      const domain = created.json().domain;
      expect(domain).toMatchObject({ hostname, status: 'pending_dns', certificate: null });
      const [cname, txt] = domain.dnsRecords;
      expect(cname).toMatchObject({ type: 'CNAME', name: hostname, value: CNAME_TARGET });
      const get = async () => (await t.app.inject({ method: 'GET', url: `${base}/${domain.id}`, headers: bearer(token) })).json().domain;

      await expect.poll(() => dns.queries.filter((q) => q === txt.name).length, { timeout: 20_000, interval: 20 }).toBeGreaterThanOrEqual(1);
      await t.restartProcesses(); // between two DNS checks
      dns.setTxt(txt.name, txt.value);
      dns.setCname(hostname, CNAME_TARGET);
      dns.setA(hostname, '127.0.0.1'); // where the CA connects for HTTP-01: the service's HTTP listener

      await expect.poll(async () => (await get()).status, { timeout: 60_000, interval: 100 }).toBe('active');
      const issued = (await get()).certificate;
      expect(issued).toMatchObject({ serialNumber: expect.any(String), renewals: 0, issuer: expect.stringContaining('Pebble') });

      const [root, intermediate] = [await pebble.management('roots/0'), await pebble.management('intermediates/0')];
      const chain = await handshake(tlsListener.port, hostname, [root]);
      expect(chain.subjectaltname).toBe(`DNS:${hostname}`);
      expect(new X509Certificate(chain.raw).checkIssued(new X509Certificate(intermediate))).toBe(true);
      const discovery = await httpsJson(tlsListener.port, hostname, `/v1/oidc/${environmentId}/.well-known/openid-configuration`, [root]);
      expect(discovery.issuer).toBe(`https://${hostname}/v1/oidc/${environmentId}`);
      expect(discovery.token_endpoint).toBe(`https://${hostname}/v1/oidc/${environmentId}/token`);
      await expect(handshake(tlsListener.port, 'unknown.example.org', [root])).rejects.toThrow();

      // Renewed before expiry (VANITY_RENEW_BEFORE): a new certificate, served from the next handshake on.
      await expect.poll(async () => (await get()).certificate?.renewals ?? 0, { timeout: 30_000, interval: 200 }).toBeGreaterThanOrEqual(1);
      const renewed = (await get()).certificate;
      expect(renewed.serialNumber).not.toBe(issued.serialNumber);
      const events = async (type: string) => (await tenantEvents(t, tenantId, { type })).filter((e) => e.subject?.id === domain.id);
      expect(await events('vanity_domain.dns_verified')).toHaveLength(1);
      expect(await events('vanity_domain.certificate_issued')).toHaveLength(1);
      expect((await events('vanity_domain.certificate_renewed')).length).toBeGreaterThanOrEqual(1);

      expect((await t.app.inject({ method: 'DELETE', url: `${base}/${domain.id}`, headers: bearer(token) })).statusCode).toBe(200);
      expect((await t.app.inject({ method: 'GET', url: `${base}/${domain.id}`, headers: bearer(token) })).statusCode).toBe(404);
      await expect.poll(async () => (await events('vanity_domain.removed')).length, { timeout: 30_000, interval: 200 }).toBe(1);
      const [removed] = await events('vanity_domain.removed');
      expect(removed!.data).toMatchObject({ certificateRevoked: true, domain: { id: domain.id } });
      const serial = (removed!.data as { domain: { certificate: { serialNumber: string } } }).domain.certificate.serialNumber;
      const status = JSON.parse(await pebble.management(`cert-status-by-serial/${serial.toLowerCase().replace(/^0+/, '')}`)) as { Status: string };
      expect(status.Status).toBe('Revoked');
      await expect.poll(async () => (await t.processes.gateway.describe(`vanity-domain:${domain.id}`)).status, { timeout: 20_000 }).toBe('completed');
      await expect(handshake(tlsListener.port, hostname, [root])).rejects.toThrow();
    },
  );
});
