// What the catalog (db/event-catalog.ts) holds per event type. Its own module, so each family's events.ts can be
// typed by it without importing the catalog that imports them.
import type { z } from 'zod';

export interface EventTypeEntry {
  description: string;
  data: z.ZodType;
}
