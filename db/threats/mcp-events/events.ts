// Events of MCP runtime observations, assembled into the event catalog (db/event-catalog.ts): one per observation
// stored (a repeated client id is not an event again), so they reach webhooks and channels like any event.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';

const observation = z.looseObject({
  observation: z.looseObject({
    id: z.uuid(),
    clientId: z.string(),
    type: z.string(),
    subject: z.string(),
    tool: z.string().nullable(),
    outcome: z.string().nullable(),
    manifestHash: z.string().nullable(),
    reason: z.string().nullable(),
    attributes: z.record(z.string(), z.unknown()),
    occurredAt: z.string(),
  }),
});

export const MCP_EVENTS = {
  'mcp.tool.invoked': { description: 'An MCP runtime reported a tool invocation (tool, outcome).', data: observation },
  'mcp.manifest.observed': { description: 'An MCP runtime reported the tool manifest hash a server exposed.', data: observation },
  'mcp.auth.failed': { description: 'An MCP runtime reported a failed authentication of a subject.', data: observation },
} as const satisfies Record<string, EventTypeEntry>;
