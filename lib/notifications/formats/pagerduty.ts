import type { ChannelConfig, ChannelSecrets, Severity } from '../channel-kinds.ts';
import { type ChannelEvent, type ChannelRequest, JSON_HEADERS, summarize, threatOf, truncate } from './summary.ts';

export const DEFAULT_SEVERITY_MAP: Readonly<Record<string, Severity>> = {
  '*.disabled': 'error',
  '*.failed': 'error',
  '*.deleted': 'warning',
  '*': 'info',
};

function matches(pattern: string, type: string): boolean {
  if (pattern === '*' || pattern === type) return true;
  if (pattern.startsWith('*.')) return type.endsWith(pattern.slice(1));
  if (pattern.endsWith('.*')) return type.startsWith(pattern.slice(0, -1));
  return false;
}

/** Exact type, then the longest matching pattern; configured entries win over the defaults. */
function lookup(map: Readonly<Record<string, Severity>>, type: string): Severity | undefined {
  const exact = map[type];
  if (exact) return exact;
  const best = Object.keys(map)
    .filter((pattern) => matches(pattern, type))
    .sort((a, b) => b.length - a.length)[0];
  return best === undefined ? undefined : map[best];
}

export function resolveSeverity(type: string, overrides: Readonly<Record<string, Severity>> = {}): Severity {
  return lookup(overrides, type) ?? lookup(DEFAULT_SEVERITY_MAP, type) ?? 'info';
}

/** A threat's severity as PagerDuty's. */
const THREAT_SEVERITY: Readonly<Record<string, Severity>> = { low: 'info', medium: 'warning', high: 'error', critical: 'critical' };

export function buildPagerDutyRequest(
  config: ChannelConfig<'pagerduty'>,
  secrets: ChannelSecrets<'pagerduty'>,
  event: ChannelEvent,
  baseUrl: string,
): ChannelRequest {
  const threat = threatOf(event);
  const body = {
    routing_key: secrets.routingKey,
    event_action: 'trigger',
    // The event id, so a retried delivery updates the same alert instead of opening another; for a threat its id,
    // so its re-occurrences and reopenings page once.
    dedup_key: threat?.id ?? event.id,
    payload: {
      summary: truncate(summarize(event), 1024),
      source: config.source ?? 'iam-service',
      severity: (threat && THREAT_SEVERITY[threat.severity]) ?? resolveSeverity(event.type, config.severityMap),
      timestamp: new Date(event.occurredAt).toISOString(),
      component: event.subject?.type,
      group: `tenant:${event.tenantId}`,
      class: event.type,
      custom_details: {
        event_id: event.id,
        tenant_id: event.tenantId,
        environment_id: event.environmentId,
        actor: event.actor,
        subject: event.subject,
        data: event.data,
      },
    },
  };
  return { url: `${baseUrl.replace(/\/+$/, '')}/v2/enqueue`, headers: { ...JSON_HEADERS }, body: JSON.stringify(body) };
}
