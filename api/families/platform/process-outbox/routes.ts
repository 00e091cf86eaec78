import { z } from 'zod';
import { callerOf, requires } from '../../../plugins/auth.ts';
import { cursorPageOf, cursorParam, errorResponses } from '../../../common/schemas.ts';
import type { ProcessOutboxService } from './service.ts';
import type { App } from '../../../types.ts';

const OutboxEntry = z
  .object({
    id: z.number().int(),
    action: z.enum(['start', 'signal']).describe('Start a process, or send it a message'),
    kind: z.string().nullable().describe('The process kind (delivery-batch, webhook-delivery, invitation-expiry, domain-verification)'),
    processId: z.string().describe('`<kind>:<entityId>`'),
    tenantId: z.uuid().nullable(),
    topic: z.string().nullable().describe('The topic of a message'),
    attempts: z.number().int().describe('Failed attempts so far'),
    lastError: z.string().nullable().describe('Why the engine refused the last attempt'),
    nextAttemptAt: z.string().describe('When a pending entry is tried next'),
    deadAt: z.string().nullable().describe('When the entry ran out of attempts; null while pending'),
    createdAt: z.string(),
  })
  .meta({ id: 'ProcessOutboxEntry' });

const ListQuery = z.strictObject({
  state: z.enum(['dead', 'pending']).default('dead').describe('`dead`: out of attempts; `pending`: waiting to be carried out or retried'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: cursorParam(/^i([1-9]\d{0,18})$/, (m) => Number(m[1])).optional(),
});

const EntryParams = z.strictObject({ entryId: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) });

const tags = ['Processes'];
const operatorsOnly = 'Operators only: a principal of another organization (or a key limited to some tenants) gets 403 `process_outbox.operator_only`.';

export function processOutboxRoutes(app: App, outbox: ProcessOutboxService) {
  app.get('/v1/process-outbox', {
    schema: {
      tags,
      operationId: 'listProcessOutboxEntries',
      summary: 'List process starts and messages that the engine refused (dead) or that wait (pending)',
      description:
        'The process outbox holds the starts and messages of durable processes recorded with business changes. An entry the ' +
        'engine refuses is retried with backoff, without holding up the others, and is dead after its last attempt: listed ' +
        `here with the reason, until an operator retries it. Oldest first, one page at a time. ${operatorsOnly}`,
      security: requires('events:read'),
      querystring: ListQuery,
      response: { 200: cursorPageOf('entries', OutboxEntry), ...errorResponses() },
    },
    handler: (request) => outbox.list(callerOf(request), request.query),
  });

  app.post('/v1/process-outbox/:entryId/retry', {
    schema: {
      tags,
      operationId: 'retryProcessOutboxEntry',
      summary: 'Retry a process outbox entry now',
      description: `Makes a dead or pending entry due at once with its attempts reset; the dispatcher carries it out on its next round. 404 for an entry that is not in the outbox (carried out already). ${operatorsOnly}`,
      security: requires('events:write'),
      params: EntryParams,
      response: { 200: z.object({ entry: OutboxEntry }), ...errorResponses(404) },
    },
    handler: async (request) => ({ entry: await outbox.retry(callerOf(request), request.params.entryId) }),
  });
}
