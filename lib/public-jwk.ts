// Public signing keys as JWKs (RFC 7517): what the trust store accepts and stores. Only EC P-256 (a point on the
// curve), OKP Ed25519 (32 bytes) and RSA of at least 2048 bits with the exponent 65537; never a private or symmetric
// member; `kid` defaults to the RFC 7638 thumbprint. A small exponent is no key at all: under e = 1 a "signature" is
// the padded digest itself, which anyone can write.
import { createPublicKey } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k', 'oth'];
const ALGS: Record<string, readonly string[]> = {
  EC: ['ES256'],
  OKP: ['EdDSA', 'Ed25519'],
  RSA: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'],
};

export interface PublicJwk {
  kty: string;
  crv?: string;
  x?: string;
  y?: string;
  n?: string;
  e?: string;
  kid: string;
  alg: string;
  use: 'sig';
}

/** A problem with a JWK: the member (`kid`, `d`…, or '' for the whole key) and what is wrong. */
export interface JwkProblem {
  member: string;
  message: string;
}

const B64URL = /^[A-Za-z0-9_-]+$/;
const RSA_EXPONENT = 65537n;
const MIN_MODULUS_BITS = 2048;

/**
 * What is wrong with the key material of a public JWK (`kty` and its members), parsed by node:crypto as a verifier
 * would; undefined when it is a usable key. Node refuses an EC point off its curve and an OKP key of the wrong length
 * on import; the RSA exponent and modulus are checked here. Also for keys read back from storage.
 */
export function keyMaterialProblem(jwk: Record<string, unknown>): JwkProblem | undefined {
  let details;
  try {
    details = createPublicKey({ key: jwk as never, format: 'jwk' }).asymmetricKeyDetails ?? {};
  } catch {
    if (jwk.kty === 'EC') return { member: '', message: `x and y are not a point on the curve ${String(jwk.crv)}` };
    return { member: '', message: 'is not a usable public key' };
  }
  if (jwk.kty !== 'RSA') return undefined;
  if ((details.modulusLength ?? 0) < MIN_MODULUS_BITS) return { member: 'n', message: 'must be the base64url of a modulus of at least 2048 bits' };
  if (details.publicExponent !== RSA_EXPONENT) return { member: 'e', message: 'must be the public exponent 65537 (AQAB)' };
  const n = Buffer.from(jwk.n as string, 'base64url');
  if ((n[n.length - 1]! & 1) === 0) return { member: 'n', message: 'must be an odd modulus' };
  return undefined;
}
const bytes = (value: unknown) => (typeof value === 'string' && B64URL.test(value) ? Buffer.from(value, 'base64url').length : -1);

/** Checks a submitted JWK (and an `alg` asked for beside it) and returns the public key to store, or the problem. */
export async function toPublicJwk(jwk: Record<string, unknown>, alg?: string): Promise<{ key: PublicJwk } | { problem: JwkProblem }> {
  const problem = (member: string, message: string) => ({ problem: { member, message } });
  const priv = PRIVATE_MEMBERS.find((m) => m in jwk);
  if (priv) return problem(priv, 'is a private key member: submit the public key only');
  const { kty, crv } = jwk;
  if (kty === 'EC') {
    if (crv !== 'P-256') return problem('crv', 'must be P-256 for an EC key');
    if (bytes(jwk.x) !== 32) return problem('x', 'must be the base64url of 32 bytes');
    if (bytes(jwk.y) !== 32) return problem('y', 'must be the base64url of 32 bytes');
  } else if (kty === 'OKP') {
    if (crv !== 'Ed25519') return problem('crv', 'must be Ed25519 for an OKP key');
    if (bytes(jwk.x) !== 32) return problem('x', 'must be the base64url of 32 bytes');
  } else if (kty === 'RSA') {
    const n = bytes(jwk.n);
    if (n < 256) return problem('n', 'must be the base64url of a modulus of at least 2048 bits');
    if (bytes(jwk.e) < 1) return problem('e', 'must be the base64url of the public exponent');
  } else {
    return problem('kty', 'must be EC (P-256), OKP (Ed25519) or RSA');
  }
  if (jwk.use !== undefined && jwk.use !== 'sig') return problem('use', 'must be sig');
  const allowed = ALGS[kty]!;
  if (jwk.alg !== undefined && (typeof jwk.alg !== 'string' || !allowed.includes(jwk.alg))) return problem('alg', `must be one of ${allowed.join(', ')}`);
  if (alg !== undefined && jwk.alg !== undefined && alg !== jwk.alg) return problem('alg', 'differs from the alg given beside the key');
  const chosen = alg ?? (jwk.alg as string | undefined) ?? allowed[0]!;
  if (!allowed.includes(chosen)) return { problem: { member: '', message: `alg must be one of ${allowed.join(', ')} for a ${kty} key` } };
  if (jwk.kid !== undefined && (typeof jwk.kid !== 'string' || !/^[\x21-\x7e]{1,200}$/.test(jwk.kid))) {
    return problem('kid', 'must be 1–200 printable ASCII characters');
  }
  const members = kty === 'EC' ? ['crv', 'x', 'y'] : kty === 'OKP' ? ['crv', 'x'] : ['n', 'e'];
  const pub = Object.fromEntries([['kty', kty], ...members.map((m) => [m, jwk[m]])]) as JWK;
  const material = keyMaterialProblem(pub as Record<string, unknown>);
  if (material) return { problem: material };
  const kid = (jwk.kid as string | undefined) ?? (await calculateJwkThumbprint(pub, 'sha256'));
  return { key: { ...(pub as Omit<PublicJwk, 'kid' | 'alg' | 'use'>), kid, alg: chosen, use: 'sig' } as PublicJwk };
}
