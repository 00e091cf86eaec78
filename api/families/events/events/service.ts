import type { DatabasePool } from 'slonik';
import { describeCatalog } from '../../../../db/event-catalog.ts';
import { createEventQueries, type EventFilter, type StoredEvent } from '../../../../db/events/events/queries.ts';
import { encodePosition, START, type EventsQuery } from './schemas.ts';
import type { TenantCaller } from '../../../access/caller.ts';

function filterOf(query: EventsQuery): EventFilter {
  const patterns = query.type === undefined ? [] : [query.type].flat();
  const everything = patterns.includes('*');
  return {
    types: everything ? [] : patterns.filter((p) => !p.endsWith('.*')),
    prefixes: everything ? [] : patterns.filter((p) => p.endsWith('.*')).map((p) => p.slice(0, -1)),
    environmentId: query.environmentId,
    occurredAfter: query.occurredAfter,
    occurredBefore: query.occurredBefore,
  };
}

const view = ({ txId: _txId, ...event }: StoredEvent) => event;

export function createEventService(pool: DatabasePool) {
  return {
    /** A page of the tenant's stream after the cursor; see db/events/events/queries.ts for the no-skip guarantee. */
    list: async (caller: TenantCaller, query: EventsQuery) => {
      const after = query.cursor ?? START;
      const rows = await createEventQueries(pool).findTenantEventsAfter(caller.scope.tenant.id, after, filterOf(query), query.limit + 1);
      const page = rows.slice(0, query.limit);
      const last = page.at(-1);
      return {
        events: page.map(view),
        nextCursor: encodePosition(last ? { txId: last.txId, sequence: String(last.sequence) } : after),
        hasMore: rows.length > query.limit,
      };
    },

    eventTypes: () => ({ eventTypes: describeCatalog() }),
  };
}

export type EventService = ReturnType<typeof createEventService>;
