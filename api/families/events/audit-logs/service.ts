import type { DatabasePool } from 'slonik';
import { createAuditLogQueries, type AuditFilter, type AuditLogEntry, type AuditScope } from '../../../../db/events/audit-logs/queries.ts';
import { encodeAuditCursor, type AuditLogsQuery } from './schemas.ts';
import { keysetPage } from '../../../common/schemas.ts';

const EXPORT_PAGE = 500;

const filterOf = ({ cursor: _cursor, limit: _limit, ...filter }: AuditLogsQuery): AuditFilter => filter;

// The tenant or organization is reached (the scope guard checked it) before a stream starts, so a 404 is still a
// JSON error rather than a broken stream.
export function createAuditLogService(pool: DatabasePool) {
  return {
    /** One page, newest first. */
    list: async (scope: AuditScope, query: AuditLogsQuery) => {
      const rows = await createAuditLogQueries(pool, scope).findEntries(filterOf(query), query.cursor ?? null, query.limit + 1);
      return keysetPage('auditLogs', rows, query.limit, (last) => encodeAuditCursor(last.sequence));
    },

    /**
     * Every matching entry, newest first, fetched in keyset pages so memory stays flat however long the log.
     * The export holds every entry committed before it started; entries committed meanwhile may or may not appear.
     */
    export: (scope: AuditScope, query: AuditLogsQuery): AsyncGenerator<AuditLogEntry> => {
      const filter = filterOf(query);
      const queries = createAuditLogQueries(pool, scope);
      return (async function* entries() {
        let before = query.cursor ?? null;
        for (;;) {
          const rows = await queries.findEntries(filter, before, EXPORT_PAGE);
          yield* rows;
          if (rows.length < EXPORT_PAGE) return;
          before = rows.at(-1)!.sequence;
        }
      })();
    },
  };
}

export type AuditLogService = ReturnType<typeof createAuditLogService>;
