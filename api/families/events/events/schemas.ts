import { z } from 'zod';
import type { StreamPosition } from '../../../../db/events/events/queries.ts';
import { cursorPageOf, cursorParam, encodeCursor } from '../../../common/schemas.ts';

// Stream positions are `<tx id>.<sequence>` (see db/events/events/queries.ts for why both).
const POSITION = /^(0|[1-9]\d{0,19})\.(0|[1-9]\d{0,18})$/;
export const START: StreamPosition = { txId: '0', sequence: '0' };
export const encodePosition = (p: StreamPosition) => encodeCursor(`${p.txId}.${p.sequence}`);

const typePattern = z.string().regex(/^(\*|[a-z0-9_]+(\.[a-z0-9_]+)*(\.\*)?)$/, 'must be an event type, a prefix such as tenant.*, or *');

export const EventsQuery = z.strictObject({
  cursor: cursorParam(POSITION, (m): StreamPosition => ({ txId: m[1]!, sequence: m[2]! }))
    .optional()
    .describe('`nextCursor` of the previous page; from the beginning of the stream when absent'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  // A repeated query key arrives as an array, a single one as a string.
  type: z
    .union([typePattern, z.array(typePattern).max(50)])
    .optional()
    .describe('Event type, or prefix such as `tenant.*`; repeat to match any of several'),
  environmentId: z.uuid().optional(),
  occurredAfter: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).optional().describe('Inclusive lower bound'),
  occurredBefore: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' }).optional().describe('Exclusive upper bound'),
});
export type EventsQuery = z.infer<typeof EventsQuery>;

const Reference = z.object({ type: z.string(), id: z.string().nullable() });

export const Event = z
  .object({
    id: z.uuid().describe('Receivers deduplicate on this id'),
    type: z.string().describe('One of GET /v1/event-types'),
    sequence: z.number().int(),
    organizationId: z.uuid().nullable(),
    tenantId: z.uuid().nullable(),
    environmentId: z.uuid().nullable(),
    actor: Reference.describe('Who caused the event'),
    subject: Reference.nullable().describe('The resource the event is about'),
    data: z.record(z.string(), z.unknown()).describe('Shaped as the JSON Schema of the type in GET /v1/event-types'),
    occurredAt: z.iso.datetime({ offset: true }),
  })
  .meta({ id: 'Event' });

// A stream: the next cursor is never null, so a reader can poll for what is committed later.
export const EventsPage = cursorPageOf('events', Event)
  .extend({
    nextCursor: z.string().describe('Pass as `cursor` to continue; equal to the given cursor when no event was returned'),
    hasMore: z.boolean().describe('Whether another page is available right now'),
  })
  .meta({ id: 'EventsPage' });

export const EventTypesList = z
  .object({
    eventTypes: z.array(
      z.object({
        type: z.string(),
        description: z.string(),
        schema: z.record(z.string(), z.unknown()).describe("JSON Schema (draft 2020-12) of the event's `data`"),
      }),
    ),
  })
  .meta({ id: 'EventTypesList' });

export const TenantEventsParams = z.strictObject({ tenantId: z.uuid() });
