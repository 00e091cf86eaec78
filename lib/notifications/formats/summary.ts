export interface ChannelEvent {
  id: string;
  type: string;
  occurredAt: string;
  tenantId: string;
  environmentId: string | null;
  actor: { type: string; id: string };
  subject: { type: string; id: string } | null;
  data: Record<string, unknown>;
}

export interface ChannelRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export const JSON_HEADERS = { 'Content-Type': 'application/json' } as const;

/** `webhook.endpoint.disabled` → `Webhook endpoint disabled`. */
export function humanizeType(type: string): string {
  const words = type.replace(/[._]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function shortId(id: string): string {
  return id.length > 12 ? `${id.slice(0, 8)}…` : id;
}

export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Names come from tenant-controlled data: keep them on one line and bounded. */
function oneLine(text: string): string {
  return truncate(text.replace(/[\p{Cc}\s]+/gu, ' ').trim(), 100);
}

/** `data.name`, else the first `data.<key>.name` (e.g. `data.tenant.name`). */
export function findName(data: Record<string, unknown>): string | null {
  const candidates = [data, ...Object.values(data)];
  for (const value of candidates) {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const name = (value as Record<string, unknown>).name;
      if (typeof name === 'string' && name.trim() !== '') return oneLine(name);
    }
  }
  return null;
}

export function describeRef(ref: { type: string; id: string }): string {
  return `${ref.type.replace(/_/g, ' ')} ${shortId(ref.id)}`;
}

/** The threat a threat event is about (`data.threat`), if any. */
export function threatOf(event: ChannelEvent): { id: string; severity: string; summary: string } | null {
  const threat = event.data.threat as Record<string, unknown> | undefined;
  return threat && typeof threat.id === 'string'
    ? { id: threat.id, severity: String(threat.severity), summary: typeof threat.summary === 'string' ? oneLine(threat.summary) : '' }
    : null;
}

/** One-line human summary, e.g. `Tenant created: Acme (tenant 1b2c3d4e…)`. */
export function summarize(event: ChannelEvent): string {
  const threat = threatOf(event);
  if (threat) return `${humanizeType(event.type)} (${threat.severity}): ${threat.summary} (threat ${threat.id})`;
  const name = findName(event.data);
  const subject = event.subject ? ` (${describeRef(event.subject)})` : '';
  return `${humanizeType(event.type)}${name ? `: ${name}` : ''}${subject}`;
}

/** Label/value pairs shared by the chat formats (Slack fields, Teams facts). */
export function eventFacts(event: ChannelEvent): Array<[string, string]> {
  const facts: Array<[string, string]> = [
    ['Event', event.type],
    ['Tenant', event.tenantId],
  ];
  if (event.environmentId) facts.push(['Environment', event.environmentId]);
  facts.push(['Actor', `${event.actor.type} ${event.actor.id}`]);
  if (event.subject) facts.push(['Subject', `${event.subject.type} ${event.subject.id}`]);
  const threat = threatOf(event);
  if (threat) facts.push(['Threat', `${threat.id} (${threat.severity})`]);
  facts.push(['Occurred at', event.occurredAt]);
  return facts;
}
