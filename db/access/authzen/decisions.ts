// The AuthZEN decision log: many rows written in one statement by the buffered writer, old rows deleted in
// batches, and read newest first by keyset on seq.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { isoTimestamp, uuid } from '../../shared/rows.ts';

export const DECISION_ENDPOINTS = ['evaluation', 'evaluations', 'search/subject', 'search/resource', 'search/action'] as const;
export type DecisionEndpoint = (typeof DECISION_ENDPOINTS)[number];

/** One decision as the writer buffers it. */
export interface DecisionRecord {
  environmentId: string;
  decidedAt: Date;
  endpoint: DecisionEndpoint;
  subject: { type: string; id: string | null } | null;
  action: string | null;
  resource: { type: string; id: string | null } | null;
  decision: boolean;
  reason: unknown;
  requestId: string | null;
  apiSecretId: string | null;
  durationMicros: number | null;
  /** The share of decisions kept when this one was (1 below the full-logging rate). */
  sampleRate: number;
}

const entity = z.object({ type: z.string(), id: z.string().nullable() }).nullable();

export const DecisionLogEntry = z
  .object({
    id: uuid,
    decidedAt: isoTimestamp,
    endpoint: z.enum(DECISION_ENDPOINTS),
    subject: entity,
    action: z.string().nullable(),
    resource: entity,
    decision: z.boolean(),
    reason: z.record(z.string(), z.unknown()),
    requestId: z.string().nullable(),
    apiSecretId: uuid.nullable(),
    durationMicros: z.number().int().nullable(),
    sampleRate: z.number().describe('The share of decisions logged when this one was: 1, or the sample rate under load (weight counts by 1 / sampleRate)'),
  })
  .meta({ id: 'DecisionLogEntry' });
export type DecisionLogEntry = z.infer<typeof DecisionLogEntry>;
/** An entry with its position in the log (the keyset cursor). */
const DecisionRow = DecisionLogEntry.extend({ seq: z.number().int() });

export interface DecisionFilter {
  subjectType?: string | undefined;
  subjectId?: string | undefined;
  action?: string | undefined;
  resourceType?: string | undefined;
  resourceId?: string | undefined;
  decision?: boolean | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

const entityOf = (type: string, id: string) =>
  sql.fragment`CASE WHEN ${sql.identifier([type])} IS NULL THEN NULL ELSE jsonb_build_object('type', ${sql.identifier([type])}, 'id', ${sql.identifier([id])}) END`;

// seq is a bigint; as a JSON number it stays exact up to 2^53.
const columns = sql.fragment`
  id, seq::float8 AS seq, decided_at AS "decidedAt", endpoint, ${entityOf('subject_type', 'subject_id')} AS subject, action,
  ${entityOf('resource_type', 'resource_id')} AS resource, decision, reason, request_id AS "requestId",
  api_secret_id AS "apiSecretId", duration_us AS "durationMicros", sample_rate::float8 AS "sampleRate"`;

function conditions(filter: DecisionFilter, before: number | null) {
  const where = [sql.fragment`TRUE`];
  if (before !== null) where.push(sql.fragment`seq < ${before}`);
  if (filter.subjectType) where.push(sql.fragment`subject_type = ${filter.subjectType}`);
  if (filter.subjectId) where.push(sql.fragment`subject_id = ${filter.subjectId}`);
  if (filter.action) where.push(sql.fragment`action = ${filter.action}`);
  if (filter.resourceType) where.push(sql.fragment`resource_type = ${filter.resourceType}`);
  if (filter.resourceId) where.push(sql.fragment`resource_id = ${filter.resourceId}`);
  if (filter.decision !== undefined) where.push(sql.fragment`decision = ${filter.decision}`);
  if (filter.since) where.push(sql.fragment`decided_at >= ${filter.since}::timestamptz`);
  if (filter.until) where.push(sql.fragment`decided_at < ${filter.until}::timestamptz`);
  return sql.join(where, sql.fragment` AND `);
}

export function createDecisionLogQueries(db: CommonQueryMethods) {
  return {
    /**
     * Writes every record in one statement. The rows travel as one JSON document (jsonb_to_recordset): serializing
     * it is native, where an unnest of 13 typed arrays costs the event loop escaping every value.
     */
    insertDecisions: (records: DecisionRecord[]) =>
      db.query(sql.unsafe`
        INSERT INTO authzen_decisions (environment_id, decided_at, endpoint, subject_type, subject_id, action, resource_type,
          resource_id, decision, reason, request_id, api_secret_id, duration_us, sample_rate)
        SELECT environment_id, decided_at, endpoint, subject_type, subject_id, action, resource_type, resource_id, decision,
          coalesce(reason, '{}'), request_id, api_secret_id, duration_us, sample_rate
        FROM jsonb_to_recordset(${JSON.stringify(
          records.map((r) => ({
            environment_id: r.environmentId,
            decided_at: r.decidedAt,
            endpoint: r.endpoint,
            subject_type: r.subject?.type ?? null,
            subject_id: r.subject?.id ?? null,
            action: r.action,
            resource_type: r.resource?.type ?? null,
            resource_id: r.resource?.id ?? null,
            decision: r.decision,
            reason: r.reason,
            request_id: r.requestId,
            api_secret_id: r.apiSecretId,
            duration_us: r.durationMicros,
            sample_rate: r.sampleRate,
          })),
        )}::jsonb) AS t(environment_id uuid, decided_at timestamptz, endpoint text, subject_type text, subject_id text, action text,
          resource_type text, resource_id text, decision boolean, reason jsonb, request_id text, api_secret_id uuid, duration_us integer,
          sample_rate real)`),

    /** Deletes up to `limit` rows decided before `before`; returns how many went. */
    // unscoped: retention prunes the log of every environment at once.
    deleteDecisionsBefore: async (before: Date, limit: number) =>
      (
        await db.query(sql.unsafe`
          DELETE FROM authzen_decisions WHERE id IN (
            SELECT id FROM authzen_decisions WHERE decided_at < ${before.toISOString()}::timestamptz LIMIT ${limit})`)
      ).rowCount,
  };
}

/** The decision log of one environment, as the management API reads it: bound to `environmentId`. */
export function createDecisionQueries(db: CommonQueryMethods, environmentId: string) {
  return {
    /** Up to `limit` entries older than seq `before` (newest first; from the newest when null). */
    findDecisions: async (filter: DecisionFilter, before: number | null, limit: number) => [
      ...(await db.any(sql.type(DecisionRow)`
        SELECT ${columns} FROM authzen_decisions WHERE environment_id = ${environmentId} AND ${conditions(filter, before)}
        ORDER BY seq DESC LIMIT ${limit}`)),
    ],
  };
}
