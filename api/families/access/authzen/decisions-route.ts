// The decision log of an environment, newest first (management API, scope authzen:read).
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import { createDecisionQueries, DecisionLogEntry } from '../../../../db/access/authzen/decisions.ts';
import { callerOf, requires } from '../../../plugins/auth.ts';
import { cursorPageOf, cursorParam, encodeCursor, errorResponses, keysetPage } from '../../../common/schemas.ts';
import type { App } from '../../../types.ts';

const timestamp = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' });
const text = z.string().min(1).max(200);

const DecisionsQuery = z.strictObject({
  // Decision cursors are `d<seq>`: the seq of the last (oldest) entry returned.
  cursor: cursorParam(/^d([1-9]\d{0,15})$/, (m) => Number(m[1])).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  subjectType: text.optional(),
  subjectId: text.optional(),
  action: text.optional(),
  resourceType: text.optional(),
  resourceId: text.optional(),
  decision: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .transform((v) => v === 'true')
    .optional(),
  since: timestamp.optional().describe('Inclusive lower bound of decidedAt'),
  until: timestamp.optional().describe('Exclusive upper bound of decidedAt'),
});

const DecisionsPage = cursorPageOf('decisions', DecisionLogEntry).meta({ id: 'DecisionLogPage' });
const params = z.strictObject({ tenantId: z.uuid(), environmentId: z.uuid() });

export function decisionLogRoutes(app: App, pool: DatabasePool) {
  app.get('/v1/tenants/:tenantId/environments/:environmentId/authzen/decisions', {
    schema: {
      tags: ['AuthZEN'],
      operationId: 'listAuthzenDecisions',
      summary: 'List the AuthZEN decision log of an environment',
      description:
        'Newest first, one page at a time with `cursor`. Each evaluation (each item of a batch) is one entry; a search is one entry whose ' +
        '`reason` holds the searched kind and the count found. Entries are written asynchronously (within about a second) and sampled at ' +
        'AUTHZEN_DECISION_LOG_SAMPLE_RATE.',
      security: requires('authzen:read'),
      params,
      querystring: DecisionsQuery,
      response: { 200: DecisionsPage, ...errorResponses(404) },
    },
    handler: async (request) => {
      const { cursor, limit, ...filter } = request.query;
      const environmentId = callerOf(request, 'environment').scope.environmentId!;
      const rows = await createDecisionQueries(pool, environmentId).findDecisions(filter, cursor ?? null, limit + 1);
      const page = keysetPage('decisions', rows, limit, (last) => encodeCursor(`d${last.seq}`));
      return { ...page, decisions: page.decisions.map(({ seq: _seq, ...entry }) => entry) };
    },
  });
}
