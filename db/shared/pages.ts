// One page of a list: the rows from an offset and the total the whole query holds (the API turns it into
// `{ <items>, total, nextCursor, hasMore }`).
import { sql, type CommonQueryMethods, type FragmentSqlToken } from 'slonik';
import { z } from 'zod';

export interface PageRequest {
  limit: number;
  offset: number;
}

export interface Page<T> {
  items: T[];
  total: number;
}

const Count = z.object({ n: z.number() });

/** `query` is a whole `SELECT … FROM … WHERE …`; its rows are paged in `orderBy` order and counted. */
export async function selectPage<T extends z.ZodType>(
  db: CommonQueryMethods,
  row: T,
  query: FragmentSqlToken,
  orderBy: FragmentSqlToken,
  page: PageRequest,
): Promise<Page<z.infer<T>>> {
  const [items, total] = await Promise.all([
    db.any(sql.type(row)`${query} ORDER BY ${orderBy} LIMIT ${page.limit} OFFSET ${page.offset}`),
    db.oneFirst(sql.type(Count)`SELECT count(*)::int AS n FROM (${query}) q`),
  ]);
  return { items: [...items] as z.infer<T>[], total };
}
