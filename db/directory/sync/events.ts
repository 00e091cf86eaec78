// Events of an environment's directory sync, assembled into db/event-catalog.ts.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { uuid } from '../../shared/rows.ts';
import { DeprovisionReason } from './queries.ts';

export const DIRECTORY_SYNC_EVENTS = {
  'directory.user.deprovisioned': {
    description:
      'A directory user that was deactivated, deleted or terminated (HR) was deprovisioned: its group memberships removed and its ' +
      'credentials revoked. `removed` lists what went, by kind (`groups`, `personalAccessTokens`, `elevateGrants`, `impersonationGrants`).',
    data: z.looseObject({
      userId: uuid,
      reason: DeprovisionReason,
      removed: z.record(z.string(), z.array(z.string())).describe('The ids removed, by kind'),
    }),
  },
} as const satisfies Record<string, EventTypeEntry>;
