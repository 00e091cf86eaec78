import { describe, expect, it } from 'vitest';
import { checkOutboundUrl, isForbiddenAddress, OutboundUrlError } from '../../lib/outbound/ssrf-guard.ts';
import type { LookupFn } from '../../lib/outbound/ssrf-guard.ts';

const answers =
  (...ips: string[]): LookupFn =>
  async () =>
    ips;

describe('isForbiddenAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['10.0.0.5', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['169.254.1.1', true],
    ['100.64.0.1', true],
    ['100.127.255.255', true],
    ['0.0.0.0', true],
    ['0.1.2.3', true],
    ['255.255.255.255', true],
    ['224.0.0.1', true],
    ['240.0.0.1', true],
    ['192.0.2.1', true],
    ['93.184.216.34', false],
    ['8.8.8.8', false],
    ['172.32.0.1', false],
    ['100.128.0.1', false],
  ])('IPv4 %s → %s', (ip, forbidden) => expect(isForbiddenAddress(ip)).toBe(forbidden));

  it.each([
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['febf::1', true],
    ['fc00::1', true],
    ['fd12:3456::1', true],
    ['ff02::1', true],
    ['2001:db8::1', true],
    ['::7f00:1', true],
    ['2606:2800:220:1:248:1893:25c8:1946', false],
    ['2001:4860:4860::8888', false],
  ])('IPv6 %s → %s', (ip, forbidden) => expect(isForbiddenAddress(ip)).toBe(forbidden));

  it.each([
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:10.0.0.1', true],
    ['::ffff:169.254.169.254', true],
    ['64:ff9b::10.0.0.1', true],
    ['2002:c0a8:0101::1', true],
    ['::ffff:93.184.216.34', false],
    ['64:ff9b::8.8.8.8', false],
  ])('embedded IPv4 %s → %s', (ip, forbidden) => expect(isForbiddenAddress(ip)).toBe(forbidden));

  // RFC 8215 local-use NAT64: the operator's translator decides where the IPv4 address sits, so none is trusted.
  it.each(['64:ff9b:1::8.8.8.8', '64:ff9b:1::808:808', '64:ff9b:1:a00:5::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff'])('local-use NAT64 %s → true', (ip) =>
    expect(isForbiddenAddress(ip)).toBe(true),
  );

  it('fails closed on garbage', () => expect(isForbiddenAddress('not-an-ip')).toBe(true));
});

describe('checkOutboundUrl', () => {
  const refuse = async (url: string, reason: string, message: RegExp, lookup?: LookupFn) => {
    const err = await checkOutboundUrl(url, { allowPrivate: false, lookup }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundUrlError);
    expect((err as OutboundUrlError).reason).toBe(reason);
    expect((err as OutboundUrlError).message).toMatch(message);
  };

  it('refuses loopback, metadata and private literals', async () => {
    await refuse('http://127.0.0.1/hook', 'forbidden_address', /points to 127\.0\.0\.1, a loopback address/);
    await refuse('http://[::1]:8080/', 'forbidden_address', /::1, a loopback address/);
    await refuse('http://169.254.169.254/latest', 'forbidden_address', /169\.254\.169\.254, a cloud metadata address/);
    await refuse('http://[::ffff:10.0.0.5]/', 'forbidden_address', /private networks are refused/);
    await refuse('http://2130706433/', 'forbidden_address', /127\.0\.0\.1/); // WHATWG URL normalises it
    await refuse('http://[64:ff9b:1::808:808]/', 'forbidden_address', /points to 64:ff9b:1::808:808, a local-use NAT64 address/);
  });

  it('refuses localhost through the real resolver', async () => {
    await refuse('http://localhost:3000/', 'forbidden_address', /resolves to .*a loopback address/);
  });

  it('refuses other schemes and credentials', async () => {
    await refuse('ftp://x/file', 'scheme', /scheme ftp is not allowed/);
    await refuse('file:///etc/passwd', 'scheme', /scheme file/);
    await refuse('http://user:pass@example.com/', 'credentials', /credentials/);
    await refuse('not a url', 'invalid_url', /not a valid/);
  });

  it('refuses a host when any answer is private', async () => {
    await refuse(
      'https://mixed.example/',
      'forbidden_address',
      /url resolves to 10\.0\.0\.1, a private address; outbound calls to private networks are refused/,
      answers('93.184.216.34', '10.0.0.1'),
    );
  });

  it('refuses unresolvable hosts', async () => {
    const failing: LookupFn = async () => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    };
    await refuse('https://nowhere.invalid/', 'unresolvable', /could not be resolved \(ENOTFOUND\)/, failing);
    await refuse('https://empty.example/', 'unresolvable', /no addresses/, answers());
  });

  it('allows a host with public answers and returns them', async () => {
    const checked = await checkOutboundUrl('https://hooks.example.com/x?y=1', {
      allowPrivate: false,
      lookup: answers('93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'),
    });
    expect(checked.url.hostname).toBe('hooks.example.com');
    expect(checked.addresses).toEqual(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946']);
  });

  it('lets private targets through with allowPrivate, but still checks scheme and credentials', async () => {
    await expect(checkOutboundUrl('http://127.0.0.1:8080/', { allowPrivate: true })).resolves.toMatchObject({ addresses: ['127.0.0.1'] });
    await expect(checkOutboundUrl('http://[::1]/', { allowPrivate: true })).resolves.toMatchObject({ addresses: ['::1'] });
    await expect(checkOutboundUrl('ftp://127.0.0.1/', { allowPrivate: true })).rejects.toThrow(OutboundUrlError);
  });
});
