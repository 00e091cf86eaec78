import { z } from 'zod';
import { SEVERITIES, Threat, THREAT_CATEGORIES, THREAT_STATUSES, ThreatAlerting } from '../../../../db/threats/threats/rows.ts';
import { displayName, pageOf, PageQuery } from '../../../common/schemas.ts';
import { EnvironmentScopeParams } from '../../projects/environment-settings/schemas.ts';

export { EnvironmentScopeParams, Threat, ThreatAlerting };

const timestamp = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time' });
const reason = z.string().trim().min(1, 'must not be empty').max(2000, 'must be at most 2000 characters');
const evidence = z
  .record(z.string(), z.unknown())
  .refine((v) => Buffer.byteLength(JSON.stringify(v)) <= 16_384, 'must be at most 16 KiB of JSON')
  .describe('What supports the threat, free-form (at most 16 KiB of JSON)');

export const ThreatParams = EnvironmentScopeParams.extend({ threatId: z.uuid() });

export const ThreatsQuery = PageQuery.extend({
  status: z.enum(THREAT_STATUSES).optional(),
  severity: z.enum(SEVERITIES).optional(),
  category: z.enum(THREAT_CATEGORIES).optional(),
  assigneeId: z.uuid().optional(),
  subject: z.string().min(1).max(512).optional(),
  since: timestamp.optional().describe('Threats last seen at or after this time'),
  until: timestamp.optional().describe('Threats first seen before this time'),
});
export type ThreatsQuery = z.infer<typeof ThreatsQuery>;

export const CreateThreatBody = z
  .strictObject({
    category: z.literal('manual').default('manual').describe('Only manual threats are created by hand; detections open the others'),
    severity: z.enum(SEVERITIES),
    subject: z.string().trim().min(1, 'must not be empty').max(512, 'must be at most 512 characters'),
    summary: displayName(500),
    evidence: evidence.default({}),
  })
  .meta({ id: 'CreateThreatRequest' });

export const TriageThreatBody = z
  .strictObject({
    status: z.enum(['open', 'investigating']).optional().describe('open ↔ investigating; resolve, dismiss and reopen have their own operations'),
    severity: z.enum(SEVERITIES).optional(),
    assigneeId: z.uuid().nullable().optional().describe('A directory user of the environment or an operator; null unassigns'),
  })
  .meta({ id: 'TriageThreatRequest' });

export const ThreatNoteBody = z
  .strictObject({ text: z.string().trim().min(1, 'must not be empty').max(10_000, 'must be at most 10000 characters') })
  .meta({ id: 'ThreatNoteRequest' });

export const CloseThreatBody = z.strictObject({ reason }).meta({ id: 'CloseThreatRequest' });

export const ThreatAlertingBody = z
  .strictObject({
    minSeverity: z.enum(SEVERITIES).describe('Threats at or above this severity are alerted'),
    channelIds: z
      .array(z.uuid())
      .max(20)
      .refine((ids) => new Set(ids).size === ids.length, 'must not repeat a channel')
      .describe('Notification channels of the tenant (for all its environments or this one) that receive threat.alerted; empty: none'),
  })
  .meta({ id: 'ThreatAlertingRequest' });

export const ThreatResponse = z.object({ threat: Threat }).meta({ id: 'ThreatResponse' });
export const ThreatsList = pageOf('threats', Threat).meta({ id: 'ThreatsList' });
export const ThreatAlertingResponse = z.object({ alerting: ThreatAlerting }).meta({ id: 'ThreatAlertingResponse' });
