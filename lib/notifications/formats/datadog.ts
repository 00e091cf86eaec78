import type { ChannelConfig, ChannelSecrets, Severity } from '../channel-kinds.ts';
import { resolveSeverity } from './pagerduty.ts';
import { type ChannelEvent, type ChannelRequest, JSON_HEADERS, eventFacts, summarize, truncate } from './summary.ts';

const ALERT_TYPES: Record<Severity, 'error' | 'warning' | 'info'> = {
  critical: 'error',
  error: 'error',
  warning: 'warning',
  info: 'info',
};

// Datadog rejects events whose date_happened is more than 18 hours in the past.
const MAX_AGE_SECONDS = 18 * 3600 - 300;

export function buildDatadogRequest(
  config: ChannelConfig<'datadog'>,
  secrets: ChannelSecrets<'datadog'>,
  event: ChannelEvent,
  baseUrl: string | null,
  nowSeconds: number,
): ChannelRequest {
  const occurred = Math.floor(Date.parse(event.occurredAt) / 1000);
  const tags = [`tenant:${event.tenantId}`, `event_type:${event.type}`, `actor_type:${event.actor.type}`];
  if (event.environmentId) tags.push(`environment:${event.environmentId}`);
  if (event.subject) tags.push(`subject_type:${event.subject.type}`);
  const body = {
    title: truncate(summarize(event), 100),
    text: truncate(
      eventFacts(event)
        .map(([label, value]) => `${label}: ${value}`)
        .join('\n'),
      4000,
    ),
    date_happened: Math.max(occurred, nowSeconds - MAX_AGE_SECONDS),
    alert_type: ALERT_TYPES[resolveSeverity(event.type)],
    priority: 'normal',
    tags: [...tags, ...(config.tags ?? [])],
    aggregation_key: event.id,
  };
  const origin = (baseUrl ?? `https://api.${config.site}`).replace(/\/+$/, '');
  return {
    url: `${origin}/api/v1/events`,
    headers: { ...JSON_HEADERS, 'DD-API-KEY': secrets.apiKey },
    body: JSON.stringify(body),
  };
}
