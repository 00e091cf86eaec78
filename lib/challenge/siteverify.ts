// A token check with the vendor's siteverify API (Turnstile, hCaptcha and reCAPTCHA share it): a form POST of
// `secret`, `response` and `remoteip`, answered `{ success, "error-codes" }`, through the SSRF-guarded client.
import { postOutbound } from '../outbound/http-client.ts';
import type { LookupFn } from '../outbound/ssrf-guard.ts';
import { BOT_CHALLENGE_VENDORS, type BotChallengeKind } from './kinds.ts';

export interface SiteverifyPolicy {
  timeoutMs: number;
  allowPrivate: boolean;
  lookup?: LookupFn | undefined;
}

export type SiteverifyAnswer =
  /** The vendor answered: `success` and its error codes (`invalid-input-response`, `invalid-input-secret`, …). */
  | { reached: true; success: boolean; errorCodes: string[]; hostname: string | null }
  /** No answer the vendor's shape: unreachable, refused by the guard, or not JSON. */
  | { reached: false; error: string };

export async function siteverify(
  kind: BotChallengeKind,
  baseUrl: string | undefined,
  input: { secret: string; response: string; remoteIp: string | null },
  policy: SiteverifyPolicy,
): Promise<SiteverifyAnswer> {
  const vendor = BOT_CHALLENGE_VENDORS[kind];
  const url = `${baseUrl ?? vendor.baseUrl}${vendor.verifyPath}`;
  const form = new URLSearchParams({ secret: input.secret, response: input.response });
  if (input.remoteIp) form.set('remoteip', input.remoteIp);
  const result = await postOutbound(
    url,
    form.toString(),
    { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    { timeoutMs: policy.timeoutMs, allowPrivate: policy.allowPrivate, lookup: policy.lookup, maxResponseBytes: 16 * 1024 },
  );
  if (result.statusCode === null) return { reached: false, error: result.error ?? 'no answer' };
  let json: unknown;
  try {
    json = JSON.parse(result.responseExcerpt ?? '');
  } catch {
    return { reached: false, error: `${result.statusCode}: the answer is not JSON` };
  }
  const body = json as { success?: unknown; 'error-codes'?: unknown; hostname?: unknown } | null;
  if (typeof body?.success !== 'boolean') return { reached: false, error: `${result.statusCode}: the answer has no \`success\`` };
  const codes = Array.isArray(body['error-codes']) ? body['error-codes'].filter((c): c is string => typeof c === 'string').slice(0, 10) : [];
  return { reached: true, success: body.success, errorCodes: codes, hostname: typeof body.hostname === 'string' ? body.hostname : null };
}
