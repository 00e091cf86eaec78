import { z } from 'zod';
import { OBSERVATION_TYPES } from '../../../../db/threats/mcp-events/queries.ts';
import { THREAT_CATEGORIES } from '../../../../db/threats/threats/rows.ts';

export const MAX_EVENTS = 500;
const MAX_ATTRIBUTES_BYTES = 4096;

const text = (max: number) => z.string().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

export const McpEvent = z
  .strictObject({
    id: text(128).describe('Client-supplied id, unique per environment: an event sent again is accepted and not stored twice'),
    type: z.enum(OBSERVATION_TYPES),
    subject: text(512).describe('The trust-store subject the event is about (SPIFFE ID, MCP server URL, client id…)'),
    occurredAt: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).optional().describe('When it happened; when received if absent'),
    tool: text(200).optional().describe('The tool name; required for tool.invoked'),
    outcome: z.enum(['allowed', 'denied', 'error']).optional().describe('tool.invoked only'),
    manifestHash: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/, 'must be sha256:<64 lowercase hex>')
      .optional()
      .describe('sha256:<hex> of the RFC 8785 JSON of the `tools` of tools/list; required for manifest.observed'),
    reason: text(1000).optional(),
    attributes: z
      .record(z.string(), z.unknown())
      .refine((v) => Buffer.byteLength(JSON.stringify(v)) <= MAX_ATTRIBUTES_BYTES, 'must be at most 4 KiB of JSON')
      .optional(),
  })
  .superRefine((e, ctx) => {
    if (e.type === 'tool.invoked' && e.tool === undefined) ctx.addIssue({ code: 'custom', path: ['tool'], message: 'is required for tool.invoked' });
    if (e.type === 'manifest.observed' && e.manifestHash === undefined) {
      ctx.addIssue({ code: 'custom', path: ['manifestHash'], message: 'is required for manifest.observed' });
    }
    if (e.outcome !== undefined && e.type !== 'tool.invoked') ctx.addIssue({ code: 'custom', path: ['outcome'], message: 'is for tool.invoked only' });
  })
  .meta({ id: 'McpEvent' });
export type McpEvent = z.infer<typeof McpEvent>;

export const McpEventsBody = z
  .strictObject({ events: z.array(McpEvent).min(1, 'must hold at least one event').max(MAX_EVENTS, `must hold at most ${MAX_EVENTS} events`) })
  .meta({ id: 'McpEventsRequest' });

export const McpEventsAccepted = z
  .object({
    accepted: z.number().int().describe('Events stored by this request'),
    duplicates: z.number().int().describe('Events whose id the environment already had (or repeated in the request): accepted, not stored again'),
    threats: z
      .array(z.object({ id: z.uuid(), category: z.enum(THREAT_CATEGORIES), occurrences: z.number().int().describe('Occurrences of the threat so far') }))
      .describe('Threats this request opened or added occurrences to'),
  })
  .meta({ id: 'McpEventsAccepted' });
