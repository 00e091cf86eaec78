// `GET /metrics` on the main port, for a Prometheus that scrapes with a bearer token holding `metrics:read`. The
// alternative without a token is METRICS_PORT, a listener of its own (api/server.ts) an operator keeps private.
import { z } from 'zod';
import { requires } from '../../../plugins/auth.ts';
import { errorResponses } from '../../../common/schemas.ts';
import type { Metrics } from '../../../metrics/registry.ts';
import type { App } from '../../../types.ts';

import { EXPOSITION_TYPE } from '../../../../lib/metrics/listener.ts';

export function metricsRoutes(app: App, metrics: Metrics) {
  app.get('/metrics', {
    config: { rateLimit: false },
    schema: {
      tags: ['Health'],
      operationId: 'getMetrics',
      summary: 'Prometheus metrics of this instance',
      description:
        'The instance’s metrics in Prometheus’ text format: requests, errors and durations per route template, database pool, process outbox ' +
        'depth and age per process kind, event-loop lag, heap and GC. Needs the scope `metrics:read` (give Prometheus a personal access ' +
        'token or organization key through `authorization.credentials`), or scrape METRICS_PORT instead.',
      security: requires('metrics:read'),
      response: { 200: z.string().describe('Prometheus text exposition format 0.0.4'), ...errorResponses() },
    },
    handler: async (_request, reply) => reply.type(EXPOSITION_TYPE).send(await metrics.render()),
  });
}
