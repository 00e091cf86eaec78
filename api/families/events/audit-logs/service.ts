import type { DatabasePool } from 'slonik';
import { createAuditLogQueries, type AuditFilter, type AuditLogEntry, type AuditScope } from '../../../../db/events/audit-logs/queries.ts';
import { encodeAuditCursor, type AuditLogsQuery } from './schemas.ts';
import type { Caller } from '../../../access/caller.ts';
import { reachableOrganization, reachableTenant } from '../../../access/reach.ts';

const EXPORT_PAGE = 500;

const filterOf = ({ cursor: _cursor, limit: _limit, ...filter }: AuditLogsQuery): AuditFilter => filter;

export function createAuditLogService(pool: DatabasePool) {
  const queries = createAuditLogQueries(pool);
  const scopeOf = async (caller: Caller, target: AuditScope): Promise<AuditScope> => {
    if ('tenantId' in target) await reachableTenant(pool, caller, target.tenantId);
    else reachableOrganization(caller, target.organizationId, { wholeOrganization: true });
    return target;
  };

  return {
    /** One page, newest first. */
    list: async (caller: Caller, target: AuditScope, query: AuditLogsQuery) => {
      const scope = await scopeOf(caller, target);
      const rows = await queries.findEntries(scope, filterOf(query), query.cursor ?? null, query.limit + 1);
      const page = rows.slice(0, query.limit);
      return { auditLogs: page, nextCursor: rows.length > query.limit ? encodeAuditCursor(page.at(-1)!.sequence) : null };
    },

    /**
     * Every matching entry, newest first, fetched in keyset pages so memory stays flat however long the log.
     * Checks access before returning, so a 404 is still a JSON error rather than a broken stream. The export
     * holds every entry committed before it started; entries committed meanwhile may or may not appear.
     */
    export: async (caller: Caller, target: AuditScope, query: AuditLogsQuery): Promise<AsyncGenerator<AuditLogEntry>> => {
      const scope = await scopeOf(caller, target);
      const filter = filterOf(query);
      return (async function* entries() {
        let before = query.cursor ?? null;
        for (;;) {
          const rows = await queries.findEntries(scope, filter, before, EXPORT_PAGE);
          yield* rows;
          if (rows.length < EXPORT_PAGE) return;
          before = rows.at(-1)!.sequence;
        }
      })();
    },
  };
}

export type AuditLogService = ReturnType<typeof createAuditLogService>;
