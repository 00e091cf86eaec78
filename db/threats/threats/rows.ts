// A threat as the API shows it: a detection (or a manual record) with its triage state, notes and resolution.
import { z } from 'zod';
import { isoTimestamp, nullableTimestamp, uuid } from '../../shared/rows.ts';

export const THREAT_CATEGORIES = [
  'mcp.manifest_mismatch',
  'mcp.tool_not_allowed',
  'mcp.unknown_subject',
  'mcp.revoked_subject',
  // A sign-in protection denied an attempt (api/protections/decisions.ts).
  'sign_in.brute_force',
  'sign_in.bot_detection',
  'sign_in.rate_limit',
  'sign_in.device_risk',
  'sign_in.restrictions',
  'sign_in.breached_password',
  'sign_in.sms_pumping',
  'manual',
] as const;
export type ThreatCategory = (typeof THREAT_CATEGORIES)[number];
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const THREAT_STATUSES = ['open', 'investigating', 'resolved', 'dismissed'] as const;
export type ThreatStatus = (typeof THREAT_STATUSES)[number];

/** Whether a severity is at or above another. */
export const atLeast = (severity: Severity, min: Severity) => SEVERITIES.indexOf(severity) >= SEVERITIES.indexOf(min);

const actor = z.object({ type: z.string(), id: z.string().nullable() });

export const ThreatNote = z
  .object({ id: uuid, author: actor, authorId: z.string().nullable(), text: z.string(), createdAt: isoTimestamp })
  .meta({ id: 'ThreatNote' });

export const Threat = z
  .object({
    id: uuid,
    environmentId: uuid,
    category: z.enum(THREAT_CATEGORIES),
    severity: z.enum(SEVERITIES),
    status: z.enum(THREAT_STATUSES),
    subject: z.string().describe('The trust-store subject (or, for a manual threat, whatever it concerns)'),
    summary: z.string(),
    evidence: z.record(z.string(), z.unknown()),
    eventIds: z.array(z.string()).describe('Client ids of the linked MCP runtime events, the latest 100'),
    occurrences: z.number().int(),
    firstSeenAt: isoTimestamp,
    lastSeenAt: isoTimestamp,
    assigneeId: uuid.nullable(),
    notes: z.array(ThreatNote),
    resolution: z
      .object({ outcome: z.enum(['resolved', 'dismissed']), reason: z.string(), by: actor, at: isoTimestamp })
      .nullable()
      .describe('How a resolved or dismissed threat was closed; null while open'),
    createdAt: isoTimestamp,
    updatedAt: isoTimestamp,
  })
  .meta({ id: 'Threat' });
export type Threat = z.infer<typeof Threat>;

export const ThreatAlerting = z
  .object({
    environmentId: uuid,
    minSeverity: z.enum(SEVERITIES),
    channelIds: z.array(uuid),
    updatedAt: nullableTimestamp.describe('null while the environment has no settings (nothing is alerted)'),
  })
  .meta({ id: 'ThreatAlerting' });
export type ThreatAlerting = z.infer<typeof ThreatAlerting>;
