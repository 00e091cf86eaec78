// Threats of an environment: detections upserted on their open dedupe key, manual records, triage, notes, closing.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { Threat, type Severity, type ThreatCategory, type ThreatStatus } from './rows.ts';
import { selectPage, type PageRequest } from '../../shared/pages.ts';
import type { Actor } from '../../shared/changes.ts';

/** How many observation ids a threat keeps (the latest). */
export const LINKED_EVENTS_MAX = 100;

const columns = sql.fragment`
  t.id, t.environment_id AS "environmentId", t.category, t.severity, t.status, t.subject, t.summary, t.evidence, t.event_ids AS "eventIds",
  t.occurrences, t.first_seen_at AS "firstSeenAt", t.last_seen_at AS "lastSeenAt", t.assignee_id AS "assigneeId",
  (SELECT coalesce(json_agg(json_build_object('id', n.id, 'author', n.author, 'authorId', n.author->>'id', 'text', n.text,
      'createdAt', to_char(n.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) ORDER BY n.created_at, n.id), '[]')
    FROM threat_notes n WHERE n.threat_id = t.id) AS notes,
  CASE WHEN t.resolved_at IS NULL THEN NULL ELSE json_build_object('outcome', t.status, 'reason', t.resolution_reason, 'by', t.resolved_by,
    'at', to_char(t.resolved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) END AS resolution,
  t.created_at AS "createdAt", t.updated_at AS "updatedAt"`;

export interface ThreatFilter {
  status?: ThreatStatus | undefined;
  severity?: Severity | undefined;
  category?: ThreatCategory | undefined;
  assigneeId?: string | undefined;
  subject?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
}

/** A detection: opens a threat, or adds its occurrences to the open one with the same key. */
export interface Detection {
  category: ThreatCategory;
  severity: Severity;
  subject: string;
  dedupeKey: string;
  summary: string;
  evidence: Record<string, unknown>;
  eventIds: string[];
  occurrences: number;
  firstSeenAt: string;
  lastSeenAt: string;
}

function conditions(environmentId: string, f: ThreatFilter) {
  const where = [sql.fragment`t.environment_id = ${environmentId}`];
  if (f.status) where.push(sql.fragment`t.status = ${f.status}`);
  if (f.severity) where.push(sql.fragment`t.severity = ${f.severity}`);
  if (f.category) where.push(sql.fragment`t.category = ${f.category}`);
  if (f.assigneeId) where.push(sql.fragment`t.assignee_id = ${f.assigneeId}`);
  if (f.subject) where.push(sql.fragment`t.subject = ${f.subject}`);
  if (f.since) where.push(sql.fragment`t.last_seen_at >= ${f.since}::timestamptz`);
  if (f.until) where.push(sql.fragment`t.first_seen_at < ${f.until}::timestamptz`);
  return sql.join(where, sql.fragment` AND `);
}

const Upserted = z.object({ id: z.uuid(), created: z.boolean() });

export function createThreatQueries(db: CommonQueryMethods, environmentId: string) {
  const byId = (id: string) => db.one(sql.type(Threat)`SELECT ${columns} FROM threats t WHERE t.environment_id = ${environmentId} AND t.id = ${id}`);
  return {
    byId,

    find: (id: string, options: { lock?: boolean } = {}) =>
      db.maybeOne(sql.type(Threat)`
        SELECT ${columns} FROM threats t WHERE t.id = ${id} AND t.environment_id = ${environmentId}
        ${options.lock ? sql.fragment`FOR UPDATE OF t` : sql.fragment``}`),

    findPage: (filter: ThreatFilter, page: PageRequest) =>
      selectPage(
        db,
        Threat,
        sql.fragment`SELECT ${columns} FROM threats t WHERE ${conditions(environmentId, filter)}`,
        sql.fragment`t.last_seen_at DESC, t.id`,
        page,
      ),

    insertManual: async (t: { severity: Severity; subject: string; summary: string; evidence: Record<string, unknown> }) => {
      const id = crypto.randomUUID();
      await db.query(sql.unsafe`
        INSERT INTO threats (id, environment_id, category, severity, subject, summary, evidence, dedupe_key)
        VALUES (${id}, ${environmentId}, 'manual', ${t.severity}, ${t.subject}, ${t.summary}, ${sql.jsonb(t.evidence as never)}, ${`manual:${id}`})`);
      return byId(id);
    },

    /**
     * Opens the threat of a detection or adds to the open one with its key, in one statement: the partial unique
     * index makes a concurrent detection of the same key wait and then add to the row the first one inserted.
     */
    upsertDetection: (d: Detection) =>
      db.one(sql.type(Upserted)`
        INSERT INTO threats (environment_id, category, severity, subject, summary, evidence, dedupe_key, event_ids, occurrences, first_seen_at, last_seen_at)
        VALUES (${environmentId}, ${d.category}, ${d.severity}, ${d.subject}, ${d.summary}, ${sql.jsonb(d.evidence as never)}, ${d.dedupeKey},
          ${sql.array(d.eventIds.slice(-LINKED_EVENTS_MAX), 'text')}, ${d.occurrences}, ${d.firstSeenAt}, ${d.lastSeenAt})
        ON CONFLICT (environment_id, dedupe_key) WHERE status IN ('open', 'investigating') DO UPDATE SET
          occurrences = threats.occurrences + EXCLUDED.occurrences,
          last_seen_at = greatest(threats.last_seen_at, EXCLUDED.last_seen_at),
          event_ids = (threats.event_ids || EXCLUDED.event_ids)[greatest(1, cardinality(threats.event_ids || EXCLUDED.event_ids) - ${LINKED_EVENTS_MAX - 1}):],
          updated_at = now()
        RETURNING id, (xmax = 0) AS created`),

    update: async (id: string, c: { status?: ThreatStatus; severity?: Severity; assigneeId?: string | null }) => {
      const sets = [
        c.status !== undefined && sql.fragment`status = ${c.status}`,
        c.severity !== undefined && sql.fragment`severity = ${c.severity}`,
        c.assigneeId !== undefined && sql.fragment`assignee_id = ${c.assigneeId}`,
        sql.fragment`updated_at = now()`,
      ].filter((f) => f !== false);
      await db.query(sql.unsafe`UPDATE threats SET ${sql.join(sets, sql.fragment`, `)} WHERE environment_id = ${environmentId} AND id = ${id}`);
      return byId(id);
    },

    addNote: async (id: string, author: Actor, text: string) => {
      await db.query(sql.unsafe`INSERT INTO threat_notes (threat_id, author, text) VALUES (${id}, ${sql.jsonb(author as never)}, ${text})`);
      await db.query(sql.unsafe`UPDATE threats SET updated_at = now() WHERE environment_id = ${environmentId} AND id = ${id}`);
      return byId(id);
    },

    close: async (id: string, outcome: 'resolved' | 'dismissed', reason: string, by: Actor) => {
      await db.query(sql.unsafe`
        UPDATE threats SET status = ${outcome}, resolution_reason = ${reason}, resolved_by = ${sql.jsonb(by as never)}, resolved_at = now(), updated_at = now()
        WHERE environment_id = ${environmentId} AND id = ${id}`);
      return byId(id);
    },

    reopen: async (id: string) => {
      await db.query(sql.unsafe`
        UPDATE threats SET status = 'open', resolution_reason = NULL, resolved_by = NULL, resolved_at = NULL, updated_at = now() WHERE environment_id = ${environmentId} AND id = ${id}`);
      return byId(id);
    },

    /** Whether a user is a directory user of the environment or an operator (a user of the bootstrap environment). */
    isAssignable: async (userId: string) =>
      (await db.maybeOneFirst(sql.type(z.object({ ok: z.boolean() }))`
        SELECT true AS ok FROM users u WHERE u.id = ${userId} AND (u.environment_id = ${environmentId}
          OR u.environment_id = (SELECT (value->>'environmentId')::uuid FROM service_state WHERE key = 'bootstrap'))`)) === true,
  };
}
