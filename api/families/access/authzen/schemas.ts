// AuthZEN 1.0 request and response shapes. Request objects are loose (the spec: unknown fields MUST be ignored),
// but what they hold is type-checked: a wrong JSON type or a missing required member is a 400 naming it.
import { z } from 'zod';
import { MAX_INPUT_BYTES, MAX_INPUT_DEPTH, MAX_INPUT_ENTRIES, inputBoundsProblem } from '../../../../lib/authz/input-bounds.ts';

const required = (message: string) => ({ error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : message) });
const text = z.string(required('must be a string')).min(1, 'must not be empty');
const object = required('must be a JSON object');
const BOUNDS = `at most ${MAX_INPUT_ENTRIES} entries (keys and list items, every level), ${MAX_INPUT_DEPTH} levels deep, ${MAX_INPUT_BYTES} bytes of JSON`;
/** A JSON object conditions see, within the input bounds (400 naming the field beyond them). */
const bounded = () =>
  z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }).superRefine((value, ctx) => {
    const problem = inputBoundsProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
const properties = bounded().nullish().describe(`Any JSON values (${BOUNDS}); null is the same as absent`);

export const Subject = z
  .looseObject(
    {
      type: text.describe('e.g. `user` (also `identity`) or `group`'),
      id: text.describe('The user’s id, externalId or userName; a group’s id, externalId or name'),
      properties,
    },
    object,
  )
  .meta({ id: 'AuthZenSubject' });
export const Resource = z.looseObject({ type: text.describe('A resource type key'), id: text, properties }, object).meta({ id: 'AuthZenResource' });
export const Action = z.looseObject({ name: text, properties }, object).meta({ id: 'AuthZenAction' });
export const Context = bounded().nullish().describe(`Free-form: time, location… (${BOUNDS})`);

const optionsShape = {
  explain: z
    .boolean({ error: 'must be true or false' })
    .optional()
    .describe('true: each decision carries `context.reason`, why it was permitted (role, grant, conditions) or denied'),
};
const Options = z.looseObject(optionsShape, object).nullish().describe('PEP-supplied execution options');

export const EvaluationBody = z
  .looseObject({ subject: Subject, action: Action, resource: Resource, context: Context, options: Options })
  .meta({ id: 'AuthZenEvaluationRequest' });
export type EvaluationBody = z.infer<typeof EvaluationBody>;

// In a batch, entities may be partial: an item left incomplete after the defaults is that item's failure, not the request's.
const partial = <T extends z.ZodObject>(schema: T) => schema.partial().nullish();
const batchEntities = { subject: partial(Subject), action: partial(Action), resource: partial(Resource), context: Context };

export const SEMANTICS = ['execute_all', 'deny_on_first_deny', 'permit_on_first_permit'] as const;
export type Semantic = (typeof SEMANTICS)[number];

export const MAX_EVALUATIONS = 1000;

export const EvaluationsBody = z
  .looseObject({
    ...batchEntities,
    evaluations: z
      .array(z.looseObject(batchEntities, object), { error: 'must be an array of objects' })
      .max(MAX_EVALUATIONS, `must hold at most ${MAX_EVALUATIONS} evaluations`)
      .nullish()
      .describe('Each item takes the top-level subject, action, resource and context it leaves out (a key it has replaces the default as a whole)'),
    options: z
      .looseObject({
        ...optionsShape,
        evaluations_semantic: z
          .enum(SEMANTICS, { error: `must be one of ${SEMANTICS.join(', ')}` })
          .optional()
          .describe('execute_all (default), deny_on_first_deny or permit_on_first_permit'),
      })
      .nullish(),
  })
  .meta({ id: 'AuthZenEvaluationsRequest' });
export type EvaluationsBody = z.infer<typeof EvaluationsBody>;

export const MAX_PAGE = 1000;
const PageRequest = z
  .looseObject({
    token: z.string({ error: 'must be a string' }).optional().describe('`next_token` of the previous page'),
    limit: z
      .number({ error: 'must be a number' })
      .int('must be an integer')
      .min(0, `must be 0..${MAX_PAGE}`)
      .max(MAX_PAGE, `must be 0..${MAX_PAGE}`)
      .optional()
      .describe('Results per page (default 50)'),
    properties: bounded().nullish(),
  })
  .nullish();
const search = { context: Context, page: PageRequest };

export const SubjectSearchBody = z
  .looseObject({ subject: Subject.partial({ id: true }).describe('`type` only; an `id` is ignored'), action: Action, resource: Resource, ...search })
  .meta({ id: 'AuthZenSubjectSearchRequest' });
export const ResourceSearchBody = z
  .looseObject({ subject: Subject, action: Action, resource: Resource.partial({ id: true }).describe('`type` only; an `id` is ignored'), ...search })
  .meta({ id: 'AuthZenResourceSearchRequest' });
export const ActionSearchBody = z.looseObject({ subject: Subject, resource: Resource, ...search }).meta({ id: 'AuthZenActionSearchRequest' });
export type SearchBody = z.infer<typeof SubjectSearchBody> | z.infer<typeof ResourceSearchBody> | z.infer<typeof ActionSearchBody>;

export const Decision = z
  .object({
    decision: z.boolean(),
    context: z.record(z.string(), z.unknown()).optional().describe('With options.explain: `reason`; on a failed batch item: `error`'),
  })
  .meta({ id: 'AuthZenDecision' });
export type Decision = z.infer<typeof Decision>;

export const EvaluationsResponse = z.object({ evaluations: z.array(Decision) }).meta({ id: 'AuthZenEvaluationsResponse' });

const PageResponse = z.object({
  next_token: z.string().describe('Pass as `page.token` for the next page; "" on the last page'),
  count: z.number().int(),
});
export const searchResponse = <T extends z.ZodType>(item: T, id: string) => z.object({ page: PageResponse, results: z.array(item) }).meta({ id });
export const EntityRef = z.object({ type: z.string(), id: z.string() });

export const Configuration = z
  .object({
    policy_decision_point: z.string(),
    access_evaluation_endpoint: z.string(),
    access_evaluations_endpoint: z.string(),
    search_subject_endpoint: z.string(),
    search_resource_endpoint: z.string(),
    search_action_endpoint: z.string(),
  })
  .meta({ id: 'AuthZenConfiguration' });
