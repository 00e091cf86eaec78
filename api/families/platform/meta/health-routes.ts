// The probes of an orchestrator or load balancer: live (the process answers) and ready (send it traffic).
import { z } from 'zod';
import { Probe } from '../../../common/schemas.ts';
import type { Readiness } from '../../../health/readiness.ts';
import type { App } from '../../../types.ts';

const Check = z.object({ ok: z.boolean(), reason: z.string().optional().describe('Why not, when not ok') });
const ReadinessReport = z
  .object({
    ok: z.boolean().describe('true when every check passes and the instance is not draining'),
    draining: z.boolean().describe('true once the instance has been told to stop (SIGTERM): it finishes its requests and exits'),
    checks: z
      .record(z.string(), Check)
      .describe(
        '`database` (reachable, migrations at or past the head this release needs) always; `dispatcher` where this process runs the ' +
          'event dispatcher (the embedded shape); `temporal` (the server answers for the namespace) where processes run on Temporal',
      ),
  })
  .meta({ id: 'ReadinessReport' });

// Never rate limited: a client behind the same address spending its budget must not make the service look down.
const config = { public: true, rateLimit: false } as const;

export function healthRoutes(app: App, deps: { readiness: Readiness }) {
  app.get('/v1/health/live', {
    config,
    schema: {
      tags: ['Health'],
      operationId: 'getLiveness',
      summary: 'Liveness: the process answers',
      description:
        'Always `{ ok: true }` while the process serves requests; it checks no dependency, so a database outage never restarts the instance. Needs no token.',
      response: { 200: Probe },
    },
    handler: () => ({ ok: true }),
  });

  app.get('/v1/health/ready', {
    config,
    schema: {
      tags: ['Health'],
      operationId: 'getReadiness',
      summary: 'Readiness: whether to send this instance traffic',
      description:
        'Answers 200 when the database is reachable with its migrations at head, the dispatcher runs (embedded shape) and the Temporal server answers ' +
        '(Temporal shape); 503 with the failing checks and their reasons otherwise, and from the moment the instance starts draining on SIGTERM. ' +
        'Each check gives up after 2 s. Needs no token.',
      response: { 200: ReadinessReport, 503: ReadinessReport },
    },
    handler: async (_request, reply) => {
      const report = await deps.readiness.report();
      return reply.status(report.ok ? 200 : 503).send(report);
    },
  });
}
