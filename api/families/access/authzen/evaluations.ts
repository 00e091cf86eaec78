// Access evaluation, single and batched. A decision is `{ decision }` alone unless the request asks for
// `options.explain`; every decision is logged (buffered, see ./decision-log.ts). RBAC decides in memory, within
// one cost budget per request; a type FGA decides (./engines.ts) awaits its store.
import { evaluate } from '../../../../lib/authz/evaluate.ts';
import { createRequestBudget } from '../../../../lib/authz/cel-cost.ts';
import type { AccessModel } from '../../../../lib/authz/compile.ts';
import type { DecisionResult, EvaluationRequest } from '../../../../lib/authz/types.ts';
import { EvaluationBody, type Decision, type EvaluationsBody, type Semantic } from './schemas.ts';
import { invalidBody, type DecisionContext } from './requests.ts';
import { decideWithFga, engineFor, type FgaDecisions } from './engines.ts';

/** What a decision is made with: the environment's compiled RBAC model, its FGA store, the request's cost budget. */
export interface Deciders {
  model: AccessModel;
  fga: FgaDecisions;
  within: <T>(work: () => T) => T;
}

export const decidersOf = (model: AccessModel, fga: FgaDecisions): Deciders => ({ model, fga, within: createRequestBudget() });

const ENTITIES = ['subject', 'action', 'resource'] as const;
const Complete = EvaluationBody.pick({ subject: true, action: true, resource: true, context: true });

/** The engine's request from a validated body: nulls (AuthZEN allows them) mean absent. */
function requestOf(body: Pick<EvaluationBody, 'subject' | 'action' | 'resource' | 'context'>): EvaluationRequest {
  const { subject, action, resource, context } = body;
  return {
    subject: { type: subject.type, id: subject.id, ...(subject.properties ? { properties: subject.properties } : {}) },
    action: { name: action.name, ...(action.properties ? { properties: action.properties } : {}) },
    resource: { type: resource.type, id: resource.id, ...(resource.properties ? { properties: resource.properties } : {}) },
    ...(context ? { context } : {}),
  };
}

/** A decision by the type's engine: synchronous for RBAC (the hot path awaits nothing), a promise for FGA. */
function decide(deciders: Deciders, request: EvaluationRequest, explain: boolean, at: DecisionContext, endpoint: 'evaluation' | 'evaluations') {
  const started = process.hrtime.bigint();
  const answer = (result: DecisionResult): Decision => {
    at.log(endpoint, {
      subject: { type: request.subject.type, id: request.subject.id },
      action: request.action.name,
      resource: { type: request.resource.type, id: request.resource.id },
      decision: result.decision,
      reason: result.reason,
      durationMicros: Number((process.hrtime.bigint() - started) / 1000n),
    });
    return explain ? { decision: result.decision, context: { reason: result.reason } } : { decision: result.decision };
  };
  const rbac = () => answer(deciders.within(() => evaluate(deciders.model, request)));
  const fga = () => decideWithFga(deciders.fga, deciders.model.environmentId, request).then(answer);
  const engine = engineFor(deciders.model, deciders.fga, request.resource.type);
  if (engine === 'rbac') return rbac();
  if (engine === 'fga') return fga();
  return engine.then((e) => (e === 'fga' ? fga() : rbac()));
}

export function evaluateOne(deciders: Deciders, body: EvaluationBody, at: DecisionContext): Decision | Promise<Decision> {
  return decide(deciders, requestOf(body), body.options?.explain === true, at, 'evaluation');
}

type Item = NonNullable<EvaluationsBody['evaluations']>[number];

type Partial = { type?: string | undefined; id?: string | undefined; name?: string | undefined } | null | undefined;
const known = (e: Partial) => (e?.type ? { type: e.type, id: e.id ?? null } : null);

const isComplete = (m: Record<string, unknown>) => {
  const { subject, action, resource } = m as Record<string, Partial | null>;
  return Boolean(subject?.type && subject.id && action?.name && resource?.type && resource.id);
};

/** An item with the defaults it leaves out; one still incomplete is that item's failure, logged with what it has. */
function complete(body: EvaluationsBody, item: Item, at: DecisionContext): EvaluationRequest | Decision {
  const merged = Object.fromEntries([...ENTITIES, 'context'].map((key) => [key, key in item ? item[key as keyof Item] : body[key as keyof EvaluationsBody]]));
  // The route validated every part already; parsing again (zod, ~0.1 ms an item) is only for the message of an incomplete one.
  if (isComplete(merged)) return requestOf(merged as Parameters<typeof requestOf>[0]);
  const parsed = Complete.safeParse(merged);
  if (parsed.success) return requestOf(parsed.data);
  const message = `Incomplete evaluation: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}.`;
  at.log('evaluations', {
    subject: known(merged.subject as Partial),
    action: (merged.action as Partial)?.name ?? null,
    resource: known(merged.resource as Partial),
    decision: false,
    reason: { permitted: false, code: 'invalid_request', message },
    durationMicros: null,
  });
  return { decision: false, context: { error: { status: 400, message } } };
}

const stopsAt: Record<Semantic, (decision: boolean) => boolean> = {
  execute_all: () => false,
  deny_on_first_deny: (decision) => !decision,
  permit_on_first_permit: (decision) => decision,
};

/** A batch: `{ evaluations }` in request order, or a single Decision when `evaluations` is absent or empty. */
export async function evaluateMany(deciders: Deciders, body: EvaluationsBody, at: DecisionContext): Promise<Decision | { evaluations: Decision[] }> {
  const explain = body.options?.explain === true;
  if (!body.evaluations?.length) {
    const single = EvaluationBody.safeParse(body);
    if (!single.success) throw invalidBody(single.error);
    return decide(deciders, requestOf(single.data), explain, at, 'evaluation');
  }
  const semantic = body.options?.evaluations_semantic ?? 'execute_all';
  const evaluations: Decision[] = [];
  for (const item of body.evaluations) {
    const request = complete(body, item, at);
    const decision = 'decision' in request ? request : await decide(deciders, request, explain, at, 'evaluations');
    if (stopsAt[semantic](decision.decision)) {
      // The spec's example: the short-circuiting item says why the array ends there (an explanation moves aside).
      if (semantic === 'deny_on_first_deny') {
        const { reason: explanation, ...rest } = decision.context ?? {};
        decision.context = { ...rest, ...(explanation ? { explanation } : {}), code: '200', reason: 'deny_on_first_deny' };
      }
      evaluations.push(decision);
      break;
    }
    evaluations.push(decision);
  }
  return { evaluations };
}
