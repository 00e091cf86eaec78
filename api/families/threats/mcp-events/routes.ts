// MCP runtime events at /v1/mcp/events, authenticated by an environment API secret of purpose `mcp`, which selects
// the environment.
import { errorResponses } from '../../../common/schemas.ts';
import { environmentSecretOf, requiresEnvironmentSecret } from '../../../plugins/environment-secret.ts';
import type { App } from '../../../types.ts';
import { MAX_EVENTS, McpEventsAccepted, McpEventsBody } from './schemas.ts';
import type { McpEventService } from './service.ts';

export function mcpEventRoutes(app: App, events: McpEventService) {
  app.post('/v1/mcp/events', {
    config: { environmentSecret: 'mcp' },
    schema: {
      tags: ['MCP Events'],
      operationId: 'ingestMcpEvents',
      summary: 'Report MCP runtime events (tool invocations, observed manifests, failed authentications)',
      description:
        `Stores up to ${MAX_EVENTS} events (1 MiB) per request, each once per environment by its client-supplied \`id\` (a repeat is counted in \`duplicates\`), ` +
        'as `mcp.tool.invoked`, `mcp.manifest.observed` and `mcp.auth.failed` events of the event stream. Each new event is checked against the trust store: ' +
        'an unknown or revoked subject, a tool outside `allowedTools`, a manifest hash other than the pin open a threat, or add an occurrence to the open one. ' +
        '400 naming the field (`body.events.<index>.<field>`), 413 over 1 MiB, 429 `mcp_events.rate_limited` with Retry-After over MCP_EVENTS_RATE_LIMIT events per second.',
      security: requiresEnvironmentSecret,
      body: McpEventsBody,
      response: { 202: McpEventsAccepted, ...errorResponses(413) },
    },
    handler: async (r, reply) => reply.status(202).send(await events.ingest(environmentSecretOf(r), r.body.events, r.id)),
  });
}
