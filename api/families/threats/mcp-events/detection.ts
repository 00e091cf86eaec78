// Detection over MCP runtime observations, against the environment's trust-store entries: an unknown subject, a
// revoked subject, a tool.invoked of a tool outside the entry's allowed tools, a manifest.observed hash that is not
// the pinned one. Findings with the same dedupe key (category + subject, + tool or hash) become one detection with
// their occurrences counted, so a batch touches each threat once.
import type { Agent } from '../../../../lib/authz/agents.ts';
import type { Observation } from '../../../../db/threats/mcp-events/queries.ts';
import type { Detection } from '../../../../db/threats/threats/queries.ts';
import type { Severity, ThreatCategory } from '../../../../db/threats/threats/rows.ts';

type McpCategory = Extract<ThreatCategory, `mcp.${string}`>;

/** The severity a detection opens with (triage may change it). */
const DEFAULT_SEVERITY: Record<McpCategory, Severity> = {
  'mcp.manifest_mismatch': 'critical',
  'mcp.revoked_subject': 'high',
  'mcp.tool_not_allowed': 'medium',
  'mcp.unknown_subject': 'low',
};

interface Finding {
  category: McpCategory;
  key: string;
  summary: string;
  evidence: Record<string, unknown>;
}

function findingOf(o: Observation, agent: Agent | undefined): Finding | null {
  if (!agent) {
    return {
      category: 'mcp.unknown_subject',
      key: '',
      summary: `Runtime events name "${o.subject}", which is not in the trust store.`,
      evidence: { type: o.type },
    };
  }
  const entry = { entryId: agent.id, kind: agent.kind, status: agent.status };
  if (agent.status === 'revoked') {
    return {
      category: 'mcp.revoked_subject',
      key: '',
      summary: `The revoked "${o.subject}" is still active at runtime.`,
      evidence: { ...entry, type: o.type },
    };
  }
  if (o.type === 'manifest.observed' && o.manifestHash !== agent.manifestHash && agent.manifestHash !== null) {
    return {
      category: 'mcp.manifest_mismatch',
      key: o.manifestHash!,
      summary: `"${o.subject}" exposes a tool manifest that differs from its pin.`,
      evidence: { ...entry, observedHash: o.manifestHash, pinnedHash: agent.manifestHash },
    };
  }
  if (o.type === 'tool.invoked' && !agent.tools.has(o.tool!)) {
    return {
      category: 'mcp.tool_not_allowed',
      key: o.tool!,
      summary: `"${o.subject}" invoked the tool "${o.tool}", which it is not allowed.`,
      evidence: { ...entry, tool: o.tool, allowedTools: agent.allowedTools },
    };
  }
  return null;
}

/** The detections of a batch, in dedupe key order (so concurrent batches take their row locks in one order). */
export function detect(agents: Map<string, Agent>, observations: Observation[]): Detection[] {
  const byKey = new Map<string, Detection>();
  for (const o of observations) {
    const finding = findingOf(o, agents.get(o.subject));
    if (!finding) continue;
    const dedupeKey = [finding.category, o.subject, finding.key].join('\n');
    const known = byKey.get(dedupeKey);
    if (known) {
      known.occurrences++;
      known.eventIds.push(o.clientId);
      if (o.occurredAt < known.firstSeenAt) known.firstSeenAt = o.occurredAt;
      if (o.occurredAt > known.lastSeenAt) known.lastSeenAt = o.occurredAt;
      continue;
    }
    byKey.set(dedupeKey, {
      category: finding.category,
      severity: DEFAULT_SEVERITY[finding.category],
      subject: o.subject,
      dedupeKey,
      summary: finding.summary,
      evidence: { ...finding.evidence, firstEventId: o.clientId },
      eventIds: [o.clientId],
      occurrences: 1,
      firstSeenAt: o.occurredAt,
      lastSeenAt: o.occurredAt,
    });
  }
  return [...byKey.values()].sort((a, b) => (a.dedupeKey < b.dedupeKey ? -1 : a.dedupeKey > b.dedupeKey ? 1 : 0));
}
