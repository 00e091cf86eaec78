// Decisions for non-human subjects (AuthZEN subject types agent, workload, mcp_server): the trust-store entry whose
// subject is `subject.id` decides alone. `call_tool` on an `mcp_tool` (id = the tool name) is permitted only to a
// verified entry (pending, suspended and revoked ones are not active) whose allowed tools list it, and, when the
// request's context carries the manifest hash the caller observed (`context.manifestHash`), only if it equals the pin.
import type { StoredModel } from './model.ts';
import type { DecisionResult, EvaluationRequest, Reason, SearchPage, SearchResult } from './types.ts';

export const AGENT_SUBJECT_TYPES = new Set(['agent', 'workload', 'mcp_server']);
export const CALL_TOOL = 'call_tool';
export const TOOL_RESOURCE_TYPE = 'mcp_tool';

export type Agent = NonNullable<StoredModel['agents']>[number] & { tools: Set<string> };

/** Trust-store entries by subject. */
export const compileAgents = (agents: StoredModel['agents'] = []): Map<string, Agent> =>
  new Map(agents.map((a) => [a.subject, { ...a, tools: new Set(a.allowedTools ?? []) }]));

const deny = (code: Extract<Reason, { permitted: false }>['code'], message: string, entryId?: string): DecisionResult => ({
  decision: false,
  reason: { permitted: false, code, message, ...(entryId ? { entryId } : {}) },
});

export function evaluateAgent(agents: Map<string, Agent>, request: EvaluationRequest): DecisionResult {
  const { subject, action, resource } = request;
  const agent = agents.get(subject.id);
  if (!agent) return deny('trust_store.not_found', `No trust-store entry has the subject "${subject.id}".`);
  if (resource.type !== TOOL_RESOURCE_TYPE)
    return deny('unknown_resource_type', `A ${subject.type} may only act on resources of type ${TOOL_RESOURCE_TYPE}.`, agent.id);
  if (action.name !== CALL_TOOL) return deny('unknown_action', `A ${subject.type} may only ${CALL_TOOL} on an ${TOOL_RESOURCE_TYPE}.`, agent.id);
  if (agent.status !== 'verified')
    return deny('trust_store.not_active', `The trust-store entry of "${subject.id}" is ${agent.status}, not verified.`, agent.id);
  if (!agent.tools.has(resource.id)) return deny('trust_store.tool_not_allowed', `"${subject.id}" may not call the tool "${resource.id}".`, agent.id);
  const observed = request.context?.manifestHash;
  if (observed !== undefined && observed !== agent.manifestHash) {
    return deny('trust_store.manifest_mismatch', `The observed tool manifest ${String(observed)} is not the one pinned for "${subject.id}".`, agent.id);
  }
  return {
    decision: true,
    reason: { permitted: true, code: 'trust_store.tool_allowed', message: `"${subject.id}" is verified and may call "${resource.id}".`, entryId: agent.id },
  };
}

/** Subject search for a non-human type: the entries of that kind (in creation order) the evaluation would permit. */
export function searchAgents(
  agents: Map<string, Agent>,
  request: Omit<EvaluationRequest, 'subject'> & { subject: { type: string } },
  page: SearchPage,
): SearchResult<{ type: string; id: string }> {
  const results: { type: string; id: string }[] = [];
  const candidates = [...agents.values()].filter((a) => a.kind === request.subject.type);
  let i = page.offset;
  for (; i < candidates.length && results.length < page.limit; i++) {
    const id = candidates[i]!.subject;
    if (evaluateAgent(agents, { ...request, subject: { type: request.subject.type, id } }).decision) results.push({ type: request.subject.type, id });
  }
  return { results, nextOffset: i < candidates.length && page.limit > 0 ? i : null };
}
