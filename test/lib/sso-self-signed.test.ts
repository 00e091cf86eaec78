// The hand-written certificate of lib/sso/self-signed.ts: a random serial whose first byte is 0 (1 in 128) must
// still be a minimal DER INTEGER, or the certificate does not parse (1 in 256 of the SP keys and test IdPs).
import { X509Certificate } from 'node:crypto';
import { expect, it } from 'vitest';
import { selfSignedCertificate } from '../../lib/sso/self-signed.ts';

it('writes a serial with leading zero bytes minimally, so the certificate parses and verifies', () => {
  for (const hex of ['00112233445566778899aabbccddeeff', '0000000000000000000000000000007f', '00ff2233445566778899aabbccddeeff']) {
    const { certificatePem } = selfSignedCertificate('test', 1, Buffer.from(hex, 'hex'));
    const certificate = new X509Certificate(certificatePem);
    expect(certificate.serialNumber.toLowerCase().replace(/^0+/, '')).toBe(hex.replace(/^0+/, ''));
    expect(certificate.subject).toBe('CN=test');
  }
});
