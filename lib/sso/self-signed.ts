// A self-signed X.509 certificate for a key pair (DER written by hand: a SAML SP publishes its encryption key in a
// certificate, and no certificate builder is a dependency). RSA with SHA-256, version 3 without extensions.
import { generateKeyPairSync, randomBytes, sign, X509Certificate } from 'node:crypto';

const tlv = (tag: number, body: Buffer) => {
  const n = body.length;
  const length = n < 0x80 ? Buffer.from([n]) : n < 0x100 ? Buffer.from([0x81, n]) : Buffer.from([0x82, n >> 8, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, body]);
};
const seq = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const oid = (dotted: string) => {
  const [a = 0, b = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [40 * a + b];
  for (const value of rest) {
    const groups = [value & 0x7f];
    for (let v = value >> 7; v > 0; v >>= 7) groups.unshift((v & 0x7f) | 0x80);
    bytes.push(...groups);
  }
  return tlv(0x06, Buffer.from(bytes));
};
// RFC 5280 4.1.2.5: UTCTime through 2049, GeneralizedTime after.
const time = (date: Date) => {
  const text = date.toISOString().replace(/[-:T]|\.\d+/g, '');
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(text.slice(2), 'ascii')) : tlv(0x18, Buffer.from(text, 'ascii'));
};
const name = (commonName: string) => seq(tlv(0x31, seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(commonName, 'utf8')))));
/** `bytes` as a positive DER INTEGER's content: minimal (no leading zero byte unless the next has its top bit set). */
const positiveInteger = (bytes: Buffer) => {
  const start = bytes.findIndex((b) => b !== 0);
  const magnitude = start === -1 ? Buffer.from([1]) : bytes.subarray(start);
  return magnitude[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), magnitude]) : magnitude;
};
const SHA256_RSA = seq(oid('1.2.840.113549.1.1.11'), Buffer.from([0x05, 0x00]));

/** A new 2048-bit RSA key pair and a certificate for it: `{ privateKeyPem, certificatePem }`. */
export function selfSignedCertificate(commonName: string, validDays = 3650, random = randomBytes(16)) {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const serial = positiveInteger(random);
  const now = Date.now();
  const tbs = seq(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))),
    tlv(0x02, serial),
    SHA256_RSA,
    name(commonName),
    seq(time(new Date(now - 60_000)), time(new Date(now + validDays * 86_400_000))),
    name(commonName),
    publicKey.export({ type: 'spki', format: 'der' }),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = seq(tbs, SHA256_RSA, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const certificate = new X509Certificate(der);
  if (!certificate.verify(publicKey)) throw new Error('self-signed certificate does not verify');
  return { privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, certificatePem: certificate.toString() };
}
