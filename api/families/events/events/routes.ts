import type { DatabasePool } from 'slonik';
import { callerOf, requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import { EventsPage, EventsQuery, EventTypesList, TenantEventsParams } from './schemas.ts';
import { createEventService } from './service.ts';
import type { App } from '../../../types.ts';

const tags = ['Events'];

export function eventRoutes(app: App, deps: { pool: DatabasePool }) {
  const events = createEventService(deps.pool);

  app.get('/v1/tenants/:tenantId/events', {
    schema: {
      tags,
      operationId: 'listTenantEvents',
      summary: 'Read the event stream of a tenant',
      description:
        'Events in commit order, oldest first. Poll with `nextCursor`: a reader never skips an event, even one ' +
        'committed after later-numbered ones; an event appears once every transaction older than its own has ended.',
      security: requires('events:read'),
      params: TenantEventsParams,
      querystring: EventsQuery,
      response: { 200: EventsPage, ...errorResponses(404) },
    },
    handler: (request) => events.list(callerOf(request, 'tenant'), request.query),
  });

  app.get('/v1/event-types', {
    schema: {
      tags,
      operationId: 'listEventTypes',
      summary: 'List every event type with the JSON Schema of its data',
      description:
        'Lists every event type the service emits with a description and the JSON Schema of its `data`, from which webhook and channel subscriptions pick.',
      security: requires('events:read'),
      response: { 200: EventTypesList, ...errorResponses() },
    },
    handler: () => events.eventTypes(),
  });
}
