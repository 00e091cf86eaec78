// MCP runtime event ingest, the hot path: per request, one statement stores the new observations with their stream
// events, detection runs in memory against the trust-store entries of the environment's cached model (dropped by
// the iam_models NOTIFY on every trust_store_entries change), and each detection is one upsert of its threat, with
// the threat's event (and alert) recorded in the same transaction.
import type { DatabasePool } from 'slonik';
import type { AccessModel } from '../../../../lib/authz/compile.ts';
import { createObservationQueries, type Observation } from '../../../../db/threats/mcp-events/queries.ts';
import { recordDetection } from '../../../../db/threats/threats/record-detection.ts';
import type { EnvironmentSecretPrincipal } from '../../../access/environment-secrets.ts';
import type { ModelCache } from '../../../access/models.ts';
import { ApiError } from '../../../errors.ts';
import { detect } from './detection.ts';
import type { EventRateLimiter } from './rate-limit.ts';
import type { McpEvent } from './schemas.ts';

export function createMcpEventService(deps: { pool: DatabasePool; models: ModelCache<AccessModel>; limiter: EventRateLimiter }) {
  return {
    ingest: async (secret: EnvironmentSecretPrincipal, events: McpEvent[], requestId: string) => {
      const wait = deps.limiter.take(secret.environmentId, events.length);
      if (wait > 0) {
        const message = `The environment sends more than ${deps.limiter.rate} MCP events per 1 second; retry in ${wait} s.`;
        throw new ApiError(429, 'mcp_events.rate_limited', message, { headers: { 'retry-after': String(wait) } });
      }
      const receivedAt = new Date().toISOString();
      const unique = new Map<string, Observation>();
      for (const e of events) {
        if (unique.has(e.id)) continue;
        unique.set(e.id, {
          clientId: e.id,
          type: e.type,
          subject: e.subject,
          tool: e.tool ?? null,
          outcome: e.outcome ?? null,
          manifestHash: e.manifestHash ?? null,
          reason: e.reason ?? null,
          attributes: e.attributes ?? {},
          occurredAt: e.occurredAt ? new Date(e.occurredAt).toISOString() : receivedAt,
        });
      }
      const { agents } = await deps.models.get(secret.environmentId);
      const scope = { tenantId: secret.tenantId, environmentId: secret.environmentId };
      return deps.pool.transaction(async (trx) => {
        const stored = await createObservationQueries(trx).insert({ ...scope, secretId: secret.secretId }, [...unique.values()]);
        const threats = [];
        for (const detection of detect(
          agents,
          [...unique.values()].filter((o) => stored.has(o.clientId)),
        )) {
          const threat = await recordDetection(trx, scope, detection, { requestId });
          threats.push({ id: threat.id, category: threat.category, occurrences: threat.occurrences });
        }
        return { accepted: stored.size, duplicates: events.length - stored.size, threats };
      });
    },
  };
}

export type McpEventService = ReturnType<typeof createMcpEventService>;
