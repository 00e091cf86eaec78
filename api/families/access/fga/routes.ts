// OpenFGA's HTTP API at /v1/fga (openfga/api openfga/v1): each environment is one store, whose id is its
// `fgaStoreId`, so `@openfga/sdk`'s OpenFgaClient works unchanged with `apiUrl: '<base>/v1/fga'`. Authenticated by
// an environment API secret with the purpose `fga` or a management bearer token with `fga:read` / `fga:write`;
// failures answer OpenFGA's `{ code, message }` (with our `error` and `requestId`).
import { PassThrough } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { callerOf, requires } from '../../../plugins/auth.ts';
import { ENVIRONMENT_SECRET } from '../../../plugins/environment-secret.ts';
import { ApiError } from '../../../errors.ts';
import { FgaApiError } from '../../../fga/errors.ts';
import { MODEL_LIMITS, parseModelDsl } from '../../../../lib/fga/model.ts';
import type { AuthorizationModel } from '../../../../lib/fga/types.ts';
import type { Consistency, FgaService, ModelSelection } from '../../../fga/service.ts';
import type { App } from '../../../types.ts';
import { STORE_OF, fgaCallerOf } from './caller.ts';
import type { FgaStoreService } from './service.ts';
import {
  AssertionParams,
  BatchCheckBody,
  BatchCheckResponse,
  ChangesQuery,
  CheckBody,
  CheckResponse,
  ExpandBody,
  ExpandResponse,
  ListObjectsBody,
  ListObjectsResponse,
  ListStoresResponse,
  ListUsersBody,
  ListUsersResponse,
  ModelParams,
  ModelsQuery,
  ReadAssertionsResponse,
  ReadBody,
  ReadChangesResponse,
  ReadModelResponse,
  ReadModelsResponse,
  ReadResponse,
  Store,
  StoreParams,
  StoresQuery,
  WriteAssertionsBody,
  WriteBody,
  WriteModelBody,
  WriteModelResponse,
  fgaErrorResponses,
} from './schemas.ts';

const tags = ['FGA'];
const BASE = '/v1/fga/stores';
const STORE = `${BASE}/:store_id`;
const MODELS = `${STORE}/authorization-models`;

const security = (scope: 'fga:read' | 'fga:write') => [...requires(scope), { [ENVIRONMENT_SECRET]: [] }];
const auth = { environmentSecret: 'fga', orBearer: true, openFgaErrors: true } as const;
/** Routes on one store; `readOnly`: a POST that changes nothing (checks, lists) answers without waiting for notifications. */
const onStore = { ...auth, tenantOf: STORE_OF } as const;
const asking = { ...onStore, readOnly: true } as const;
// The engine's answers are built to their documented shapes: serialized without re-validating them on the hot path.
const serializerCompiler = () => (data: unknown) => JSON.stringify(data);
const credentials =
  'An environment API secret (`adenv_…`) with the purpose `fga` reaches its environment’s store only; a management token reaches the stores of the environments of its tenants. A store that is not the caller’s is 404 `store_id_not_found`.';
const contextual =
  '`contextual_tuples` count for this request only; `context` feeds the conditions (a tuple’s own context wins); `consistency: HIGHER_CONSISTENCY` reads past this instance’s caches.';

const unimplemented = (what: string) => () => {
  throw new FgaApiError(404, 'unimplemented', `${what} is not supported here: each environment is one store, created and deleted with it.`);
};

/** What selects the model and the freshness of a query. */
const selection = (body: { authorization_model_id?: string | undefined; consistency?: Consistency | undefined }): ModelSelection => ({
  modelId: body.authorization_model_id,
  consistency: body.consistency,
});

export function fgaRoutes(app: App, stores: FgaStoreService, fga: FgaService) {
  // A model written in OpenFGA's DSL comes as text/plain. It is turned into its JSON form once the caller is
  // authenticated (this family's hook runs after the app's), so the route validates one shape and a DSL error names
  // the line and column of what was written. Elsewhere the API speaks JSON only.
  app.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: MODEL_LIMITS.modelBytes }, (request, body, done) => {
    if (request.routeOptions.url === MODELS && request.method === 'POST') return done(null, body);
    done(new ApiError(415, 'request.unsupported_media_type', 'Content-Type text/plain is taken by POST …/authorization-models only; send application/json.'));
  });
  app.addHook('preValidation', (request, _reply, done) => {
    if (typeof request.body !== 'string' || request.routeOptions.url !== MODELS) return done();
    parseModelDsl(request.body).then(
      (model: Partial<AuthorizationModel>) => {
        delete model.id;
        request.body = model;
        done();
      },
      (error: unknown) => done(FgaApiError.from(error) ?? (error as Error)),
    );
  });

  const storesCaller = (r: FastifyRequest) => (r.environmentSecret ? { secret: r.environmentSecret } : { principal: callerOf(r).principal });

  app.get(BASE, {
    config: auth,
    schema: {
      tags,
      operationId: 'listFgaStores',
      summary: 'List stores',
      description: `The caller’s stores, one per environment: an environment API secret sees its environment’s, a management token those of the environments of the tenants it reaches, in id order. ${credentials}`,
      security: security('fga:read'),
      querystring: StoresQuery,
      response: { 200: ListStoresResponse, ...fgaErrorResponses() },
    },
    handler: (r) => stores.listStores(storesCaller(r), r.query),
  });
  app.post(BASE, {
    config: auth,
    schema: {
      tags,
      operationId: 'createFgaStore',
      summary: 'Create a store (not supported)',
      hide: true,
      description: 'Always 404 `unimplemented`: every environment is one store, created with the environment.',
      security: security('fga:write'),
      response: fgaErrorResponses(),
    },
    handler: unimplemented('Creating a store'),
  });
  app.get(STORE, {
    config: onStore,
    schema: {
      tags,
      operationId: 'getFgaStore',
      summary: 'Get a store',
      description: `The environment’s store: its id is the environment’s \`fgaStoreId\`, its name \`<project> / <environment>\`. ${credentials}`,
      security: security('fga:read'),
      params: StoreParams,
      response: { 200: Store, ...fgaErrorResponses() },
    },
    handler: (r) => stores.getStore(fgaCallerOf(r)),
  });
  app.delete(STORE, {
    config: onStore,
    schema: {
      tags,
      operationId: 'deleteFgaStore',
      summary: 'Delete a store (not supported)',
      hide: true,
      description: 'Always 404 `unimplemented` (or `store_id_not_found`): a store goes with its environment.',
      security: security('fga:write'),
      params: StoreParams,
      response: fgaErrorResponses(),
    },
    handler: (r) => {
      fgaCallerOf(r);
      return unimplemented('Deleting a store')();
    },
  });

  app.post(MODELS, {
    config: onStore,
    schema: {
      tags,
      operationId: 'writeFgaAuthorizationModel',
      summary: 'Write an authorization model',
      description:
        'Stores a new model, which becomes the latest; models never change. The body is OpenFGA’s JSON (`schema_version` `1.1`, `type_definitions`, `conditions`) or, with `Content-Type: text/plain`, the model in OpenFGA’s DSL. ' +
        'An invalid model is a 400 `invalid_authorization_model` naming the type or relation, with the line and column in the DSL written (for JSON: in the model’s DSL form).',
      security: security('fga:write'),
      params: StoreParams,
      body: WriteModelBody,
      response: { 201: WriteModelResponse, ...fgaErrorResponses() },
    },
    handler: async (r, reply) => reply.status(201).send(await stores.writeModel(fgaCallerOf(r), r.body)),
  });
  app.get(MODELS, {
    config: onStore,
    schema: {
      tags,
      operationId: 'listFgaAuthorizationModels',
      summary: 'List authorization models',
      description: 'The store’s models, newest first, `page_size` (1 to 100, 50 by default) at a time; `continuation_token` is empty on the last page.',
      security: security('fga:read'),
      params: StoreParams,
      querystring: ModelsQuery,
      response: { 200: ReadModelsResponse, ...fgaErrorResponses() },
    },
    handler: (r) => stores.listModels(fgaCallerOf(r), r.query),
  });
  app.get(`${STORE}/authorization-models/:id`, {
    config: onStore,
    schema: {
      tags,
      operationId: 'getFgaAuthorizationModel',
      summary: 'Get an authorization model',
      description: 'One model of the store; 400 `authorization_model_not_found` for an id the store does not have.',
      security: security('fga:read'),
      params: ModelParams,
      response: { 200: ReadModelResponse, ...fgaErrorResponses() },
    },
    handler: (r) => stores.readModel(fgaCallerOf(r), r.params.id),
  });

  app.post(`${STORE}/write`, {
    config: onStore,
    schema: {
      tags,
      operationId: 'writeFgaTuples',
      summary: 'Write and delete relationship tuples',
      description:
        `Deletes \`deletes.tuple_keys\` and writes \`writes.tuple_keys\` (at most 100 together) in one transaction, with the change log; either all happens or none. Written tuples must fit the model (\`authorization_model_id\`, else the latest): 400 \`invalid_tuple\`. ` +
        'Writing a stored tuple is 400 `write_failed_due_to_invalid_input` unless `writes.on_duplicate` is `ignore` (and the condition is the same); deleting a missing one likewise unless `deletes.on_missing` is `ignore`. ' +
        'The same tuple twice in one request is 400 `cannot_allow_duplicate_tuples_in_one_request`. Answers once this instance’s caches dropped what the change makes stale.',
      security: security('fga:write'),
      params: StoreParams,
      body: WriteBody,
      response: { 200: z.object({}), ...fgaErrorResponses() },
    },
    handler: (r) => stores.write(fgaCallerOf(r), r.body),
  });
  app.post(`${STORE}/read`, {
    config: asking,
    schema: {
      tags,
      operationId: 'readFgaTuples',
      summary: 'Read relationship tuples',
      description:
        'The stored tuples matching a partial `tuple_key`: `object` as `type:id`, or as the type alone followed by its colon (required with `user`), `relation`, `user`; none for every tuple. `page_size` 1 to 100 (50 by default); `continuation_token` is empty on the last page.',
      security: security('fga:read'),
      params: StoreParams,
      body: ReadBody,
      response: { 200: ReadResponse, ...fgaErrorResponses() },
    },
    handler: (r) => stores.read(fgaCallerOf(r), r.body),
  });
  app.get(`${STORE}/changes`, {
    config: onStore,
    schema: {
      tags,
      operationId: 'readFgaChanges',
      summary: 'Read the change log of tuples',
      description:
        'Tuple writes and deletes, oldest first, of one object `type` and from `start_time` when given, `page_size` (1 to 100, 50 by default) at a time. The `continuation_token` of the last page comes back when nothing is newer: poll with it. A change shows once every transaction older than it has ended, so a token never skips one that commits late. A token used with another `type` is 400 `query_string_type_continuation_token_mismatch`.',
      security: security('fga:read'),
      params: StoreParams,
      querystring: ChangesQuery,
      response: { 200: ReadChangesResponse, ...fgaErrorResponses() },
    },
    handler: (r) => stores.changes(fgaCallerOf(r), r.query),
  });

  app.post(`${STORE}/check`, {
    config: asking,
    serializerCompiler,
    schema: {
      tags,
      operationId: 'checkFga',
      summary: 'Check a relationship',
      description: `Whether \`tuple_key.user\` has \`tuple_key.relation\` on \`tuple_key.object\`. With \`trace: true\`, \`resolution\` names the path that granted. ${contextual} A condition missing a parameter is 400 \`condition_missing_parameters\`; resolution beyond 25 hops is 400 \`authorization_model_resolution_too_complex\`.`,
      security: security('fga:read'),
      params: StoreParams,
      body: CheckBody,
      response: { 200: CheckResponse, ...fgaErrorResponses() },
    },
    handler: async (r) => {
      const { tuple_key: key, contextual_tuples, context, trace } = r.body;
      const result = await fga.check(fgaCallerOf(r).environmentId, selection(r.body), {
        ...key,
        contextualTuples: contextual_tuples?.tuple_keys,
        context,
      });
      return { allowed: result.allowed, resolution: trace && result.path ? result.path.join(' → ') : '' };
    },
  });
  app.post(`${STORE}/batch-check`, {
    config: asking,
    serializerCompiler,
    schema: {
      tags,
      operationId: 'batchCheckFga',
      summary: 'Check many relationships',
      description: `Up to 50 checks, each answered under its \`correlation_id\` (unique in the request): \`{ allowed }\`, or \`{ error: { input_error, message } }\` for a check that could not be answered. ${contextual}`,
      security: security('fga:read'),
      params: StoreParams,
      body: BatchCheckBody,
      response: { 200: BatchCheckResponse, ...fgaErrorResponses() },
    },
    handler: async (r) => {
      const ids = new Set<string>();
      r.body.checks.forEach((c, i) => {
        if (ids.has(c.correlation_id)) {
          throw new FgaApiError(400, 'validation_error', `Invalid request: body.checks.${i}.correlation_id is not unique: '${c.correlation_id}'.`);
        }
        ids.add(c.correlation_id);
      });
      const answers = await fga.batchCheck(
        fgaCallerOf(r).environmentId,
        selection(r.body),
        r.body.checks.map((c) => ({ ...c.tuple_key, contextualTuples: c.contextual_tuples?.tuple_keys, context: c.context, correlationId: c.correlation_id })),
      );
      const result: Record<string, { allowed?: boolean; error?: { input_error: string; message: string } }> = {};
      for (const [id, answer] of answers) {
        result[id] = 'allowed' in answer ? { allowed: answer.allowed } : { error: { input_error: answer.error.code, message: answer.error.message } };
      }
      return { result };
    },
  });
  app.post(`${STORE}/expand`, {
    config: asking,
    serializerCompiler,
    schema: {
      tags,
      operationId: 'expandFga',
      summary: 'Expand a relation',
      description: 'One level of the userset tree of `tuple_key.object#tuple_key.relation`, in OpenFGA’s shape (leaves `users`, `computed`, `tupleToUserset`).',
      security: security('fga:read'),
      params: StoreParams,
      body: ExpandBody,
      response: { 200: ExpandResponse, ...fgaErrorResponses() },
    },
    handler: async (r) => {
      const tree = await fga.expand(fgaCallerOf(r).environmentId, selection(r.body), {
        ...r.body.tuple_key,
        contextualTuples: r.body.contextual_tuples?.tuple_keys,
      });
      return { tree: { ...tree } };
    },
  });
  app.post(`${STORE}/list-objects`, {
    config: asking,
    serializerCompiler,
    schema: {
      tags,
      operationId: 'listFgaObjects',
      summary: 'List the objects a user has a relation on',
      description: `The objects of \`type\` on which \`user\` has \`relation\`, at most 1000, in no particular order. ${contextual}`,
      security: security('fga:read'),
      params: StoreParams,
      body: ListObjectsBody,
      response: { 200: ListObjectsResponse, ...fgaErrorResponses() },
    },
    handler: async (r) => {
      const { type, relation, user, contextual_tuples, context } = r.body;
      const objects = await fga.listObjects(fgaCallerOf(r).environmentId, selection(r.body), {
        type,
        relation,
        user,
        contextualTuples: contextual_tuples?.tuple_keys,
        context,
      });
      return { objects };
    },
  });
  app.post(`${STORE}/streamed-list-objects`, {
    config: asking,
    schema: {
      tags,
      operationId: 'streamFgaObjects',
      summary: 'Stream the objects a user has a relation on',
      description: `List objects as a stream: one JSON line \`{"result":{"object":"type:id"}}\` per object as it is found (\`application/x-ndjson\`); a failure once streaming has begun is a last line \`{"error":{"code","message"}}\`. ${contextual}`,
      security: security('fga:read'),
      params: StoreParams,
      body: ListObjectsBody,
      response: { 200: z.string().describe('Newline-delimited JSON'), ...fgaErrorResponses() },
    },
    handler: async (r, reply) => {
      const { type, relation, user, contextual_tuples, context } = r.body;
      const environmentId = fgaCallerOf(r).environmentId;
      const stream = new PassThrough();
      const line = (value: unknown) => stream.write(`${JSON.stringify(value)}\n`);
      let signal!: () => void;
      const firstObject = new Promise<void>((resolve) => (signal = resolve));
      const finished = fga.listObjects(
        environmentId,
        selection(r.body),
        { type, relation, user, contextualTuples: contextual_tuples?.tuple_keys, context },
        {
          onObject: (object) => {
            line({ result: { object } });
            signal();
          },
        },
      );
      // Until the first object, a failure (an unknown model, type or relation) is an HTTP error, not a stream.
      await Promise.race([firstObject, finished]);
      finished.then(
        () => stream.end(),
        (error: unknown) => {
          const known = FgaApiError.from(error);
          if (!known) r.log.error({ err: error }, 'streamed list objects failed');
          line({ error: { code: known?.code ?? 'internal_error', message: known?.message ?? 'Something went wrong on our side.' } });
          stream.end();
        },
      );
      // The response schema documents the lines; the stream itself is what is sent.
      return reply.type('application/x-ndjson').send(stream as unknown as string);
    },
  });
  app.post(`${STORE}/list-users`, {
    config: asking,
    serializerCompiler,
    schema: {
      tags,
      operationId: 'listFgaUsers',
      summary: 'List the users that have a relation on an object',
      description: `The users of \`user_filters\` (each a type, or a type and relation for usersets; OpenFGA takes one, here up to 10) that have \`relation\` on \`object\`: \`{ object }\`, \`{ userset }\`, or \`{ wildcard }\` when \`type:*\` grants. ${contextual}`,
      security: security('fga:read'),
      params: StoreParams,
      body: ListUsersBody,
      response: { 200: ListUsersResponse, ...fgaErrorResponses() },
    },
    handler: async (r) => {
      const { object, relation, user_filters, contextual_tuples, context } = r.body;
      const users = await fga.listUsers(fgaCallerOf(r).environmentId, selection(r.body), {
        object,
        relation,
        userFilters: user_filters,
        contextualTuples: contextual_tuples,
        context,
      });
      return { users };
    },
  });

  app.get(`${STORE}/assertions/:authorization_model_id`, {
    config: onStore,
    schema: {
      tags,
      operationId: 'readFgaAssertions',
      summary: 'Read the assertions of a model',
      description: 'The assertions (expected check answers) written for the model; none when never written.',
      security: security('fga:read'),
      params: AssertionParams,
      response: { 200: ReadAssertionsResponse, ...fgaErrorResponses() },
    },
    handler: (r) => stores.readAssertions(fgaCallerOf(r), r.params.authorization_model_id),
  });
  app.put(`${STORE}/assertions/:authorization_model_id`, {
    config: onStore,
    schema: {
      tags,
      operationId: 'writeFgaAssertions',
      summary: 'Write the assertions of a model',
      description:
        'Replaces the model’s assertions (at most 100). Each names a type and relation of the model (400 `type_not_found`, `relation_not_found`), and its contextual tuples must fit the model. 204 on success.',
      security: security('fga:write'),
      params: AssertionParams,
      body: WriteAssertionsBody,
      response: { 204: z.null().describe('Written'), ...fgaErrorResponses() },
    },
    handler: async (r, reply) => {
      await stores.writeAssertions(fgaCallerOf(r), r.params.authorization_model_id, r.body.assertions);
      return reply.status(204).send(null);
    },
  });
}
