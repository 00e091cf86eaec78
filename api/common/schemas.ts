import { z } from 'zod';
import type { Page, PageRequest } from '../../db/shared/pages.ts';

export const ErrorResponse = z
  .object({
    error: z.string().describe('A human-readable sentence'),
    code: z.string().describe('Stable machine-readable code, `<resource>.<reason>`'),
    requestId: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'ErrorResponse' });

export const Probe = z.object({ ok: z.boolean() }).meta({ id: 'Probe' });

/** Error responses documented on every authenticated operation, plus the extra ones given. */
export function errorResponses(...statuses: number[]) {
  const all = [400, 401, 403, 429, 500, ...statuses];
  return Object.fromEntries([...new Set(all)].sort().map((s) => [s, ErrorResponse]));
}

export { displayName } from '../../lib/text.ts';

const MetaStatus = z.object({ message: z.string().nullable(), code: z.number().nullable() }).meta({ id: 'MetaStatus' });
/** The optional `meta` envelope of management responses (SPEC "Generic shapes"). */
export const ManagementMeta = z.object({ ok: MetaStatus.nullable(), error: MetaStatus.nullable() }).meta({ id: 'ManagementMeta' });

// One page shape for every list: `{ <items>, total?, nextCursor, hasMore }`. Offset lists take `limit` with
// `offset` or the opaque `cursor` of the previous page (which encodes the next offset) and report `total`;
// keyset lists (events, audit logs, deliveries) take `cursor` only.

/** An opaque cursor: base64url of a small text token. */
export const encodeCursor = (token: string) => Buffer.from(token, 'utf8').toString('base64url');

/** A query parameter holding an opaque cursor whose token `pattern` must match entirely, decoded to `T` (400 naming it otherwise). */
export function cursorParam<T>(pattern: RegExp, decode: (match: RegExpExecArray) => T) {
  return z
    .string()
    .max(200)
    .transform((value, ctx) => {
      const match = /^[A-Za-z0-9_-]+$/.test(value) ? pattern.exec(Buffer.from(value, 'base64url').toString('utf8')) : null;
      if (!match || encodeCursor(match[0]) !== value) {
        ctx.addIssue({ code: 'custom', message: 'is not a cursor returned by this API' });
        return z.NEVER;
      }
      return decode(match);
    })
    .describe('Opaque cursor from a previous page (`nextCursor`)');
}

const offsetCursor = (offset: number) => encodeCursor(`o${offset}`);

export const PageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  cursor: cursorParam(/^o(0|[1-9]\d{0,9})$/, (m) => Number(m[1]))
    .optional()
    .describe('`nextCursor` of the previous page; takes the place of `offset`'),
});
export type PageQuery = z.infer<typeof PageQuery>;

/** The response schema of a list: the items under `key`, `total` (offset lists), `nextCursor` and `hasMore`. */
export function pageOf<K extends string, T extends z.ZodType>(key: K, item: T, options: { nullable?: boolean } = {}) {
  const items = { [key]: options.nullable ? z.array(item).nullable() : z.array(item) } as Record<K, z.ZodArray<T> | z.ZodNullable<z.ZodArray<T>>>;
  return z.object({
    ...items,
    total: z.number().int().describe('How many items the whole list holds'),
    nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page'),
    hasMore: z.boolean().describe('Whether a next page follows'),
  });
}

/** The response schema of a keyset list: like pageOf, without `total`. */
export const cursorPageOf = <K extends string, T extends z.ZodType>(key: K, item: T) => pageOf(key, item).omit({ total: true });

/** One page of an offset list, fetched by `find` from the offset `query` asks for (its cursor, or `offset`). */
export async function listPage<K extends string, T>(key: K, query: PageQuery, find: (page: PageRequest) => Promise<Page<T>>) {
  const offset = query.cursor ?? query.offset;
  const { items, total } = await find({ limit: query.limit, offset });
  const next = offset + items.length;
  const hasMore = items.length > 0 && next < total;
  return { ...({ [key]: items } as Record<K, T[]>), total, nextCursor: hasMore ? offsetCursor(next) : null, hasMore };
}

/** One page of a keyset list from `limit + 1` rows: the extra row only tells that more follow. */
export function keysetPage<K extends string, T>(key: K, rows: T[], limit: number, cursorOf: (last: T) => string) {
  const items = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return { ...({ [key]: items } as Record<K, T[]>), nextCursor: hasMore ? cursorOf(items.at(-1)!) : null, hasMore };
}

/** What a delete answers (SPEC SuccessIdResponse): the id of what is gone. */
export const SuccessIdResponse = z.object({ success: z.literal(true), id: z.string() }).meta({ id: 'SuccessIdResponse' });
