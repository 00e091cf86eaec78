// Webhook signatures (DESIGN §7, api-conventions §8): `X-Service-Signature: t=<unix seconds>, v1=<hex>`
// with v1 = hex(HMAC-SHA256(secret, `${t}.${rawBody}`)), one v1 per active secret during rotation.
// Plain JavaScript (types in webhook-signature.d.ts) so receivers can import it from node_modules.
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * @param {string} secret the full `whsec_…` string, used as the HMAC key as-is
 * @param {number} t
 * @param {string | Buffer} rawBody
 * @returns {string}
 */
function computeSignature(secret, t, rawBody) {
  return createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
}

/**
 * @param {string | Buffer} rawBody the exact bytes that are sent
 * @param {string[]} secrets
 * @param {number} [timestampSeconds]
 * @returns {string}
 */
export function signWebhookPayload(rawBody, secrets, timestampSeconds = Math.floor(Date.now() / 1000)) {
  if (secrets.length === 0) throw new Error('signWebhookPayload needs at least one secret');
  if (!Number.isInteger(timestampSeconds)) throw new Error('timestampSeconds must be an integer');
  const signatures = secrets.map((secret) => `v1=${computeSignature(secret, timestampSeconds, rawBody)}`);
  return [`t=${timestampSeconds}`, ...signatures].join(', ');
}

/**
 * @param {string | Buffer} rawBody the body exactly as received, before any JSON parsing
 * @param {string} header the X-Service-Signature header value
 * @param {string | string[]} secrets
 * @param {{ toleranceSeconds?: number; nowSeconds?: number }} [options]
 * @returns {boolean}
 */
export function verifyWebhookSignature(rawBody, header, secrets, options = {}) {
  const tolerance = options.toleranceSeconds ?? 300;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (typeof header !== 'string') return false;
  const parts = header.split(',').map((p) => p.trim());
  const tText = parts.find((p) => p.startsWith('t='))?.slice(2) ?? '';
  const candidates = parts.filter((p) => p.startsWith('v1=')).map((p) => Buffer.from(p.slice(3), 'utf8'));
  if (!/^\d+$/.test(tText) || candidates.length === 0) return false;
  const t = Number(tText);
  if (Math.abs(now - t) > tolerance) return false;
  const list = Array.isArray(secrets) ? secrets : [secrets];
  // Check every pair without short-circuiting so timing does not reveal which secret matched.
  let matched = false;
  for (const secret of list) {
    const expected = Buffer.from(computeSignature(secret, t, rawBody), 'utf8');
    for (const got of candidates) {
      if (got.length === expected.length && timingSafeEqual(got, expected)) matched = true;
    }
  }
  return matched;
}
