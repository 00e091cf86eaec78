/** Header value `t=<unix seconds>, v1=<hex>[, v1=<hex>…]`, one v1 per secret. */
export function signWebhookPayload(rawBody: string | Buffer, secrets: string[], timestampSeconds?: number): string;

/** True when any v1 matches any secret and |now − t| ≤ toleranceSeconds (default 300). */
export function verifyWebhookSignature(
  rawBody: string | Buffer,
  header: string,
  secrets: string | string[],
  options?: { toleranceSeconds?: number; nowSeconds?: number },
): boolean;
