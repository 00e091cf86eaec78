// Search page tokens: opaque to the PEP, base64url of `<next offset>.<request hash>`. The hash covers the request
// without `page.token`, so a follow-up that changed anything else is refused (AuthZEN: follow-ups must be
// identical but for the token) instead of paging through a different result set.
import { createHash } from 'node:crypto';
import { ApiError } from '../../../errors.ts';

export const DEFAULT_LIMIT = 50;

/** JSON with object keys sorted, so the same request hashes the same whatever its key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function requestHash(endpoint: string, body: Record<string, unknown>): string {
  const page = { ...(body.page as Record<string, unknown> | null | undefined) };
  delete page.token;
  return createHash('sha256')
    .update(canonical({ endpoint, ...body, page }))
    .digest('base64url')
    .slice(0, 22);
}

const TOKEN = /^(0|[1-9]\d{0,8})\.([A-Za-z0-9_-]{22})$/;

/** The offset a request's page starts at: 0, or the one its token carries (400 when garbled or for another request). */
export function pageStart(endpoint: string, body: Record<string, unknown>): { offset: number; limit: number; next: (offset: number | null) => string } {
  const page = (body.page ?? {}) as { token?: string; limit?: number };
  const hash = requestHash(endpoint, body);
  let offset = 0;
  if (page.token) {
    const match = /^[A-Za-z0-9_-]+$/.test(page.token) ? TOKEN.exec(Buffer.from(page.token, 'base64url').toString('utf8')) : null;
    if (!match) {
      throw new ApiError(400, 'authzen.invalid_page_token', 'page.token is not a next_token returned by this PDP.', {
        details: [{ path: 'body.page.token', message: 'is not a next_token returned by this PDP' }],
      });
    }
    if (match[2] !== hash) {
      throw new ApiError(400, 'authzen.page_mismatch', 'A follow-up search must repeat the first request exactly, but for page.token.', {
        details: [{ path: 'body.page.token', message: 'belongs to a different search request' }],
      });
    }
    offset = Number(match[1]);
  }
  return {
    offset,
    limit: page.limit ?? DEFAULT_LIMIT,
    next: (nextOffset) => (nextOffset === null ? '' : Buffer.from(`${nextOffset}.${hash}`, 'utf8').toString('base64url')),
  };
}
