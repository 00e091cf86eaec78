// Events of threats, assembled into the event catalog (db/event-catalog.ts).
import { z } from 'zod';
import type { EventTypeEntry } from '../../shared/event-type-entry.ts';
import { Threat, SEVERITIES, ThreatAlerting } from './rows.ts';

// Loose objects: a field added to an event later never breaks a reader of the catalog or an emitter.
const threat = z.looseObject({ threat: Threat });

export const THREAT_EVENTS = {
  'threat.created': { description: 'A threat was opened: detected from MCP runtime events, or recorded by hand.', data: threat },
  'threat.updated': {
    description: 'A threat was triaged (status, severity, assignee), got a note, or got new occurrences; `change` says which.',
    data: z.looseObject({ threat: Threat, change: z.enum(['triage', 'note', 'occurrence']) }),
  },
  'threat.resolved': {
    description: 'A threat was closed: `outcome` is resolved or dismissed, with the reason in `threat.resolution`.',
    data: z.looseObject({ threat: Threat, outcome: z.enum(['resolved', 'dismissed']) }),
  },
  'threat.reopened': { description: 'A resolved or dismissed threat was opened again.', data: threat },
  'threat.alerted': {
    description:
      "A threat reached the environment's alerting threshold (opened, reopened or raised to it): delivered to the channels of the threat alerting settings (`channelIds`).",
    data: z.looseObject({
      threat: Threat,
      trigger: z.enum(['created', 'reopened', 'escalated']),
      minSeverity: z.enum(SEVERITIES),
      channelIds: z.array(z.uuid()),
    }),
  },
  'threat.alerting_updated': { description: 'The threat alerting settings of an environment were changed.', data: z.looseObject({ alerting: ThreatAlerting }) },
} as const satisfies Record<string, EventTypeEntry>;
