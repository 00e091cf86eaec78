// Events of Admin Portal links and sessions, assembled into the event catalog (db/event-catalog.ts). The link's token
// never appears in them: `portalLink` shows its prefix and hint only. What an admin does in the portal emits the
// events of the family it goes through (environment.connection.saved, provisioning_token.created, …) with the
// portal session as the actor.
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { PortalLink } from './rows.ts';

// Loose objects: a field added to an event later never breaks a reader of the catalog or an emitter.
const portalLink = z.looseObject({ portalLink: PortalLink });

export const ADMIN_PORTAL_EVENTS = {
  'portal_link.created': { description: 'An Admin Portal link was created for an organization; its token was shown once.', data: portalLink },
  'portal_link.revoked': { description: 'An Admin Portal link was revoked: it cannot be opened, and its session (if any) ends.', data: portalLink },
  'portal_link.opened': {
    description: 'An Admin Portal link was opened: a portal session started (`sessionId`, until `sessionExpiresAt`).',
    data: z.looseObject({ portalLink: PortalLink, sessionId: z.uuid(), sessionExpiresAt: z.string() }),
  },
  'portal_session.connection_tested': {
    description: 'A "test connection" sign-in of the portal finished: `succeeded`, the connection and the signed-in subject or the reason.',
    data: z.looseObject({
      sessionId: z.uuid(),
      succeeded: z.boolean(),
      connectionId: z.uuid().nullable(),
      subject: z.string().nullable(),
      reason: z.string().nullable(),
    }),
  },
} as const satisfies Record<string, EventTypeEntry>;
