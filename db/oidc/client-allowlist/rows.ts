// An entry of an environment's client allowlist: a client that may sign the environment's users in.
import { z } from 'zod';
import { isoTimestamp, uuid } from '../../shared/rows.ts';

export const ClientAllowlistEntry = z
  .object({
    id: uuid,
    clientId: z.string(),
    clientName: z.string().nullable().describe('The name of the client; null once the client is deleted (the entry stays until removed)'),
    createdAt: isoTimestamp,
  })
  .meta({ id: 'ClientAllowlistEntry' });
export type ClientAllowlistEntry = z.infer<typeof ClientAllowlistEntry>;
