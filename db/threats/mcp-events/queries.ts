// MCP runtime observations: a whole batch stored in one statement with its stream events. The rows travel as one
// JSON document (jsonb_to_recordset, as the AuthZEN decision log); a client id the environment already has is
// skipped (the unique (environment_id, client_id)), and only the rows actually stored come back, so a batch sent
// again is neither stored, nor an event, nor a detection twice.
import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import type { EventType } from '../../event-catalog.ts';

export const OBSERVATION_TYPES = ['tool.invoked', 'manifest.observed', 'auth.failed'] as const;
export type ObservationType = (typeof OBSERVATION_TYPES)[number];

const EVENT_OF = {
  'tool.invoked': 'mcp.tool.invoked',
  'manifest.observed': 'mcp.manifest.observed',
  'auth.failed': 'mcp.auth.failed',
} as const satisfies Record<ObservationType, EventType>;

export interface Observation {
  clientId: string;
  type: ObservationType;
  subject: string;
  tool: string | null;
  outcome: string | null;
  manifestHash: string | null;
  reason: string | null;
  attributes: Record<string, unknown>;
  occurredAt: string;
}

const Stored = z.object({ clientId: z.string() });

export function createObservationQueries(db: CommonQueryMethods) {
  return {
    /** Stores the observations not stored yet, each with its event; returns the client ids stored. */
    insert: async (scope: { environmentId: string; tenantId: string; secretId: string }, observations: Observation[]) => {
      const rows = await db.any(sql.type(Stored)`
        WITH input AS (
          SELECT * FROM jsonb_to_recordset(${JSON.stringify(observations)}::jsonb) AS t("clientId" text, type text, subject text, tool text,
            outcome text, "manifestHash" text, reason text, attributes jsonb, "occurredAt" timestamptz)
        ), stored AS (
          INSERT INTO mcp_observations (environment_id, client_id, type, subject, tool, outcome, manifest_hash, reason, attributes, occurred_at)
          SELECT ${scope.environmentId}, "clientId", type, subject, tool, outcome, "manifestHash", reason, coalesce(attributes, '{}'), "occurredAt" FROM input
          ON CONFLICT (environment_id, client_id) DO NOTHING
          RETURNING *
        ), streamed AS (
          INSERT INTO events (type, tenant_id, environment_id, actor, subject, data)
          SELECT (${sql.jsonb(EVENT_OF)}::jsonb)->>s.type, ${scope.tenantId}, ${scope.environmentId},
            jsonb_build_object('type', 'api_secret', 'id', ${scope.secretId}::text), jsonb_build_object('type', 'mcp_observation', 'id', s.id),
            jsonb_build_object('observation', jsonb_build_object('id', s.id, 'clientId', s.client_id, 'type', s.type, 'subject', s.subject,
              'tool', s.tool, 'outcome', s.outcome, 'manifestHash', s.manifest_hash, 'reason', s.reason, 'attributes', s.attributes,
              'occurredAt', to_char(s.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))
          FROM stored s
        )
        SELECT client_id AS "clientId" FROM stored`);
      return new Set(rows.map((r) => r.clientId));
    },
  };
}
