// Access evaluation, single and batched. A decision is `{ decision }` alone unless the request asks for
// `options.explain`; every decision is logged (buffered, see ./decision-log.ts).
import { evaluate } from '../../../../lib/authz/evaluate.ts';
import type { AccessModel } from '../../../../lib/authz/compile.ts';
import type { EvaluationRequest } from '../../../../lib/authz/types.ts';
import { EvaluationBody, type Decision, type EvaluationsBody, type Semantic } from './schemas.ts';
import { invalidBody, type DecisionContext } from './requests.ts';

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

function decide(model: AccessModel, request: EvaluationRequest, explain: boolean, at: DecisionContext, endpoint: 'evaluation' | 'evaluations'): Decision {
  const started = process.hrtime.bigint();
  const result = evaluate(model, request);
  at.log(endpoint, {
    subject: { type: request.subject.type, id: request.subject.id },
    action: request.action.name,
    resource: { type: request.resource.type, id: request.resource.id },
    decision: result.decision,
    reason: result.reason,
    durationMicros: Number((process.hrtime.bigint() - started) / 1000n),
  });
  return explain ? { decision: result.decision, context: { reason: result.reason } } : { decision: result.decision };
}

export function evaluateOne(model: AccessModel, body: EvaluationBody, at: DecisionContext): Decision {
  return decide(model, requestOf(body), body.options?.explain === true, at, 'evaluation');
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
export function evaluateMany(model: AccessModel, body: EvaluationsBody, at: DecisionContext): Decision | { evaluations: Decision[] } {
  const explain = body.options?.explain === true;
  if (!body.evaluations?.length) {
    const single = EvaluationBody.safeParse(body);
    if (!single.success) throw invalidBody(single.error);
    return decide(model, requestOf(single.data), explain, at, 'evaluation');
  }
  const semantic = body.options?.evaluations_semantic ?? 'execute_all';
  const evaluations: Decision[] = [];
  for (const item of body.evaluations) {
    const request = complete(body, item, at);
    const decision = 'decision' in request ? request : decide(model, request, explain, at, 'evaluations');
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
