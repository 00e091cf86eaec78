// OpenFGA's HTTP API shapes (openfga/api openfga/v1, snake_case as OpenFGA has them), with OpenFGA's field limits:
// a wrong JSON type, a missing field or a value beyond a limit is a 400 `validation_error` naming the field.
import { z } from 'zod';
import { ErrorResponse } from '../../../common/schemas.ts';
import { inputBoundsProblem } from '../../../../lib/authz/input-bounds.ts';
import { FGA_LIMITS } from '../../../../lib/fga/types.ts';
import { ULID_PATTERN } from '../../../../lib/fga/store-id.ts';

const required = (message: string) => ({ error: (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : message) });
const string = (max: number) => z.string(required('must be a string')).min(1, 'must not be empty').max(max, `must be at most ${max} characters`);
const ulid = (what: string) => z.string(required('must be a string')).regex(ULID_PATTERN, `must be ${what} (a ULID: 26 characters of Crockford base32)`);

/** OpenFGA's limits on a tuple key's parts. */
const user = string(512).describe('`type:id`, `type:*` (every subject of the type) or `type:id#relation` (a userset)');
const relation = z
  .string(required('must be a string'))
  .regex(/^[^:#@\s]{1,50}$/, 'must be 1 to 50 characters without `:`, `#`, `@` or whitespace')
  .describe('A relation of the object’s type');
const object = string(256).describe('`type:id`');
const typeName = z.string(required('must be a string')).regex(/^[^:#@\s]{1,254}$/, 'must be 1 to 254 characters without `:`, `#`, `@` or whitespace');

/** A condition's context (or a request's): a JSON object within the condition input bounds. */
const Context = z
  .record(z.string(), z.unknown(), { error: 'must be a JSON object' })
  .superRefine((value, ctx) => {
    const problem = inputBoundsProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .describe('Values of the condition’s parameters; a tuple’s own context wins over the request’s');

export const StoreId = ulid('a store id').describe('The environment’s store id (`fgaStoreId` on the environment)');
export const ModelId = ulid('an authorization model id');
const Consistency = z
  .enum(['UNSPECIFIED', 'MINIMIZE_LATENCY', 'HIGHER_CONSISTENCY'])
  .optional()
  .describe('`HIGHER_CONSISTENCY` reads past this instance’s cache of tuple look-ups and of the latest model');
const authorizationModelId = ModelId.optional().describe('The model that answers; the latest when absent');

const Condition = z
  .strictObject({ name: string(50).describe('A condition of the model'), context: Context.optional() })
  .meta({ id: 'FgaRelationshipCondition' });

export const TupleKey = z.strictObject({ user, relation, object, condition: Condition.optional() }).meta({ id: 'FgaTupleKey' });
const TupleKeyWithoutCondition = z.strictObject({ user, relation, object }).meta({ id: 'FgaTupleKeyWithoutCondition' });
const CheckTupleKey = z.strictObject({ user, relation, object }).meta({ id: 'FgaCheckRequestTupleKey' });
/** A tuple key as answers carry it (open, like every response schema). */
const TupleKeyAnswer = z
  .object({
    user: z.string(),
    relation: z.string(),
    object: z.string(),
    condition: z.object({ name: z.string(), context: z.record(z.string(), z.unknown()).optional() }).optional(),
  })
  .meta({ id: 'FgaTupleKeyAnswer' });
const tupleKeys = (what: string) =>
  z
    .array(TupleKey)
    .max(FGA_LIMITS.contextualTuples, `must hold at most ${FGA_LIMITS.contextualTuples} ${what}`)
    .describe(`At most ${FGA_LIMITS.contextualTuples}`);
const ContextualTuples = z
  .strictObject({ tuple_keys: tupleKeys('contextual tuples') })
  .describe('Tuples that count for this request only (checked against the model like written ones)')
  .meta({ id: 'FgaContextualTupleKeys' });

export const StoreParams = z.object({ store_id: StoreId });
export const ModelParams = z.object({ store_id: StoreId, id: ModelId });
export const AssertionParams = z.object({ store_id: StoreId, authorization_model_id: ModelId });

const pageSize = (max: number) =>
  z.coerce
    .number({ error: 'must be a number' })
    .int('must be an integer')
    .min(1, `must be between 1 and ${max}`)
    .max(max, `must be between 1 and ${max}`)
    .optional()
    .describe(`1 to ${max}; 50 when absent`);
const continuationToken = z
  .string()
  .max(1000, 'is not a continuation token this API issued')
  .optional()
  .describe('From the previous page; empty or absent for the first');

export const StoresQuery = z.object({
  page_size: pageSize(100),
  continuation_token: continuationToken,
  name: z.string().max(256).optional().describe('Only the store of this name'),
});
export const ModelsQuery = z.object({ page_size: pageSize(100), continuation_token: continuationToken });
export const ChangesQuery = z.object({
  type: typeName.optional().describe('Only changes of tuples whose object is of this type'),
  page_size: pageSize(100),
  continuation_token: continuationToken,
  start_time: z.iso.datetime({ offset: true, error: 'must be an RFC 3339 timestamp' }).optional().describe('Only changes at or after this time'),
});

export const Store = z
  .object({ id: z.string(), name: z.string().describe('`<project> / <environment>`'), created_at: z.string(), updated_at: z.string() })
  .meta({ id: 'FgaStore' });
export const ListStoresResponse = z.object({ stores: z.array(Store), continuation_token: z.string() }).meta({ id: 'FgaListStoresResponse' });

export const AuthorizationModel = z
  .object({
    id: z.string(),
    schema_version: z.string(),
    type_definitions: z.array(z.record(z.string(), z.unknown())),
    conditions: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'FgaAuthorizationModel' });

export const WriteModelJson = z
  .strictObject({
    schema_version: z.string(required('must be a string')).describe('`1.1`'),
    type_definitions: z
      .array(z.looseObject({ type: typeName }, { error: 'must be a JSON object' }), required('must be an array'))
      .min(1, 'must hold at least one type definition'),
    conditions: z.record(z.string(), z.looseObject({}, { error: 'must be a JSON object' })).optional(),
  })
  .meta({ id: 'FgaWriteAuthorizationModelRequest' });
export type WriteModelJson = z.infer<typeof WriteModelJson>;
/** A model as the API answers it (the engine's AuthorizationModel, typed loosely for the response schema). */
export type AuthorizationModelJson = z.infer<typeof AuthorizationModel>;
/** The body of a model write: OpenFGA's JSON, or a DSL model the text/plain parser turned into it (routes.ts). */
export const WriteModelBody = WriteModelJson;
export const WriteModelResponse = z.object({ authorization_model_id: z.string() }).meta({ id: 'FgaWriteAuthorizationModelResponse' });
export const ReadModelResponse = z.object({ authorization_model: AuthorizationModel }).meta({ id: 'FgaReadAuthorizationModelResponse' });
export const ReadModelsResponse = z
  .object({ authorization_models: z.array(AuthorizationModel), continuation_token: z.string() })
  .meta({ id: 'FgaReadAuthorizationModelsResponse' });

const writeLimit = `at most ${FGA_LIMITS.tuplesPerWrite} tuples in writes and deletes together`;
export const WriteBody = z
  .strictObject({
    writes: z
      .strictObject({
        tuple_keys: z.array(TupleKey).min(1, 'must hold at least one tuple'),
        on_duplicate: z.enum(['error', 'ignore']).optional().describe('`ignore`: a tuple already stored (with the same condition) is no error'),
      })
      .optional(),
    deletes: z
      .strictObject({
        tuple_keys: z.array(TupleKeyWithoutCondition).min(1, 'must hold at least one tuple'),
        on_missing: z.enum(['error', 'ignore']).optional().describe('`ignore`: a tuple not stored is no error'),
      })
      .optional(),
    authorization_model_id: authorizationModelId,
  })
  .superRefine((body, ctx) => {
    if ((body.writes?.tuple_keys.length ?? 0) + (body.deletes?.tuple_keys.length ?? 0) > FGA_LIMITS.tuplesPerWrite) {
      ctx.addIssue({ code: 'custom', message: `must hold ${writeLimit}`, path: [] });
    }
  })
  .meta({ id: 'FgaWriteRequest' });

export const ReadBody = z
  .strictObject({
    tuple_key: z.strictObject({ user: user.optional(), relation: relation.optional(), object: object.optional() }).optional(),
    page_size: pageSize(100),
    continuation_token: continuationToken,
    consistency: Consistency,
  })
  .meta({ id: 'FgaReadRequest' });
const StoredTuple = z.object({ key: TupleKeyAnswer, timestamp: z.string() }).meta({ id: 'FgaTuple' });
export const ReadResponse = z.object({ tuples: z.array(StoredTuple), continuation_token: z.string() }).meta({ id: 'FgaReadResponse' });
export const ReadChangesResponse = z
  .object({
    changes: z.array(z.object({ tuple_key: TupleKeyAnswer, operation: z.enum(['TUPLE_OPERATION_WRITE', 'TUPLE_OPERATION_DELETE']), timestamp: z.string() })),
    continuation_token: z.string(),
  })
  .meta({ id: 'FgaReadChangesResponse' });

const query = {
  authorization_model_id: authorizationModelId,
  contextual_tuples: ContextualTuples.optional(),
  context: Context.optional(),
  consistency: Consistency,
};

export const CheckBody = z.strictObject({ tuple_key: CheckTupleKey, ...query, trace: z.boolean().optional() }).meta({ id: 'FgaCheckRequest' });
export const CheckResponse = z.object({ allowed: z.boolean(), resolution: z.string() }).meta({ id: 'FgaCheckResponse' });

export const BatchCheckBody = z
  .strictObject({
    checks: z
      .array(
        z.strictObject({
          tuple_key: CheckTupleKey,
          contextual_tuples: ContextualTuples.optional(),
          context: Context.optional(),
          correlation_id: string(36).describe('Names the check’s result; unique in the request'),
        }),
      )
      .min(1, 'must hold at least one check')
      .max(FGA_LIMITS.batchCheckItems, `must hold at most ${FGA_LIMITS.batchCheckItems} checks`),
    authorization_model_id: authorizationModelId,
    consistency: Consistency,
  })
  .meta({ id: 'FgaBatchCheckRequest' });
const CheckError = z.object({ input_error: z.string().optional(), internal_error: z.string().optional(), message: z.string() });
export const BatchCheckResponse = z
  .object({ result: z.record(z.string(), z.object({ allowed: z.boolean().optional(), error: CheckError.optional() })) })
  .meta({ id: 'FgaBatchCheckResponse' });

export const ExpandBody = z
  .strictObject({
    tuple_key: z.strictObject({ relation, object }),
    authorization_model_id: authorizationModelId,
    consistency: Consistency,
    contextual_tuples: ContextualTuples.optional(),
  })
  .meta({ id: 'FgaExpandRequest' });
export const ExpandResponse = z.object({ tree: z.record(z.string(), z.unknown()) }).meta({ id: 'FgaExpandResponse' });

export const ListObjectsBody = z.strictObject({ type: typeName, relation, user, ...query }).meta({ id: 'FgaListObjectsRequest' });
export const ListObjectsResponse = z.object({ objects: z.array(z.string()) }).meta({ id: 'FgaListObjectsResponse' });

export const ListUsersBody = z
  .strictObject({
    object: z.strictObject({ type: typeName, id: string(256) }),
    relation,
    user_filters: z
      .array(z.strictObject({ type: typeName, relation: relation.optional() }))
      .min(1, 'must hold at least one filter')
      .max(10, 'must hold at most 10 filters')
      .describe('OpenFGA takes exactly one; several are answered together here'),
    authorization_model_id: authorizationModelId,
    contextual_tuples: tupleKeys('contextual tuples').optional(),
    context: Context.optional(),
    consistency: Consistency,
  })
  .meta({ id: 'FgaListUsersRequest' });
export const ListUsersResponse = z.object({ users: z.array(z.record(z.string(), z.unknown())) }).meta({ id: 'FgaListUsersResponse' });

const Assertion = z
  .strictObject({
    tuple_key: CheckTupleKey,
    expectation: z.boolean(required('must be true or false')),
    contextual_tuples: tupleKeys('contextual tuples').optional(),
    context: Context.optional(),
  })
  .meta({ id: 'FgaAssertion' });
export const WriteAssertionsBody = z
  .strictObject({ assertions: z.array(Assertion).max(100, 'must hold at most 100 assertions') })
  .meta({ id: 'FgaWriteAssertionsRequest' });
export type Assertion = z.infer<typeof Assertion>;
const AssertionAnswer = z
  .object({
    tuple_key: z.object({ user: z.string(), relation: z.string(), object: z.string() }),
    expectation: z.boolean(),
    contextual_tuples: z.array(TupleKeyAnswer).optional(),
    context: z.record(z.string(), z.unknown()).optional(),
  })
  .meta({ id: 'FgaAssertionAnswer' });
export const ReadAssertionsResponse = z
  .object({ authorization_model_id: z.string(), assertions: z.array(AssertionAnswer) })
  .meta({ id: 'FgaReadAssertionsResponse' });

/** An error as OpenFGA answers it (`code`, `message`), with the service's own `error` and `requestId`. */
export const FgaErrorResponse = ErrorResponse.extend({
  code: z.string().describe('OpenFGA’s error code: `validation_error`, `store_id_not_found`, `invalid_tuple`…'),
  message: z.string().describe('A human-readable sentence (the same as `error`)'),
}).meta({ id: 'FgaErrorResponse' });

/** Error responses of every FGA operation (400, 401, 403, 404, 429, 500), plus the extra ones given. */
export function fgaErrorResponses(...statuses: number[]) {
  return Object.fromEntries([...new Set([400, 401, 403, 404, 429, 500, ...statuses])].sort().map((s) => [s, FgaErrorResponse]));
}
