// The HTTP vendors' shared call: a JSON POST through the SSRF-guarded client, the vendor's error text on refusal.
import { postOutbound, type OutboundResult } from '../../outbound/http-client.ts';
import { EmailSendError, type OutboundPolicy } from './types.ts';

const MAX_RESPONSE_BYTES = 64 * 1024;
const MAX_ERROR_CHARS = 500;

/** Posts `body` as JSON and answers the 2xx result; anything else is an EmailSendError with the vendor's words. */
export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  policy: OutboundPolicy,
  errorOf: (json: unknown) => string | undefined,
): Promise<OutboundResult & { json: unknown }> {
  const result = await postOutbound(
    url,
    body,
    { 'content-type': 'application/json', accept: 'application/json', ...headers },
    {
      ...policy,
      maxResponseBytes: MAX_RESPONSE_BYTES,
    },
  );
  const json = parseJson(result.responseExcerpt);
  if (result.ok) return { ...result, json };
  if (result.statusCode === null) throw new EmailSendError(`could not reach ${new URL(url).host}: ${result.error}`);
  const text = errorOf(json) ?? result.responseExcerpt?.trim() ?? '';
  throw new EmailSendError(`${result.statusCode}: ${text || 'no error text'}`.slice(0, MAX_ERROR_CHARS), result.statusCode);
}

function parseJson(text: string | null): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `json.field` when it is a non-empty string. */
export const stringAt = (json: unknown, field: string): string | undefined => {
  const value = (json as Record<string, unknown> | null | undefined)?.[field];
  return typeof value === 'string' && value !== '' ? value : undefined;
};
