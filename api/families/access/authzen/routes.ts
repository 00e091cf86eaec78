// OpenID AuthZEN Authorization API 1.0 at /access/v1: the environment API secret (adenv_…) selects the environment
// whose model answers. Deny is a 200 with `decision: false`; HTTP errors are for protocol problems only.
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../../../errors.ts';
import { errorResponses } from '../../../common/schemas.ts';
import { requiresEnvironmentSecret } from '../../../plugins/environment-secret.ts';
import type { FamilyDeps } from '../../family.ts';
import type { App } from '../../../types.ts';
import { createDecisionLog } from './decision-log.ts';
import { decisionLogRoutes } from './decisions-route.ts';
import { decidersOf, evaluateMany, evaluateOne } from './evaluations.ts';
import type { FgaDecisions } from './engines.ts';
import { decisionContext } from './requests.ts';
import { search } from './searches.ts';
import {
  ActionSearchBody,
  Configuration,
  Decision,
  EntityRef,
  EvaluationBody,
  EvaluationsBody,
  EvaluationsResponse,
  ResourceSearchBody,
  SubjectSearchBody,
  searchResponse,
} from './schemas.ts';

const tags = ['AuthZEN'];
const PREFIX = '/access/v1';
const JSON_TYPE = /^application\/json\s*(;|$)/i;
// Decisions change nothing: no wait for notifications (api/app.ts) on the hot path.
const config = { environmentSecret: 'authzen', readOnly: true } as const;
// The engine's answers are built here to their documented shapes: serialized without re-validating them on the hot path.
const serializerCompiler = () => (data: unknown) => JSON.stringify(data);
const security = requiresEnvironmentSecret;
const explainNote = ' With `options.explain: true`, each decision carries `context.reason` (why it was permitted or denied).';

export function authzenRoutes(app: App, deps: FamilyDeps, fga: FgaDecisions) {
  const log = createDecisionLog({ pool: deps.pool, settings: deps.config.decisionLog, warn: (details, message) => app.log.warn(details, message) });
  app.addHook('onClose', () => log.close());

  app.addHook('onRequest', (request, reply, done) => {
    if (!request.url.startsWith(`${PREFIX}/`)) return done();
    // AuthZEN: a PEP's X-Request-ID MUST come back as sent, whatever it looks like (the app keeps only tame ones as its own id).
    const given = request.headers['x-request-id'];
    if (typeof given === 'string') reply.header('x-request-id', given);
    // The certification scenario wants 400, not 415, for a body that is not JSON.
    if (request.method === 'POST' && !JSON_TYPE.test(request.headers['content-type'] ?? '')) {
      return done(
        new ApiError(
          400,
          'request.unsupported_media_type',
          `Content-Type ${request.headers['content-type'] ?? '(none)'} is not supported; send application/json.`,
        ),
      );
    }
    done();
  });

  /** The request's deciders (the environment's RBAC model, its FGA store, one cost budget) and decision context. */
  const answer = async (request: FastifyRequest) => {
    const at = decisionContext(request, log);
    return { deciders: decidersOf(await deps.models.get(at.environmentId), fga), at };
  };

  app.post(`${PREFIX}/evaluation`, {
    config,
    serializerCompiler,
    schema: {
      tags,
      operationId: 'evaluateAccess',
      summary: 'Access evaluation: may this subject perform this action on this resource?',
      description: `Answers \`{ decision }\` from the environment's directory and roles; a deny is a 200 with \`decision: false\`. Unknown fields are ignored.${explainNote}`,
      security,
      body: EvaluationBody,
      response: { 200: Decision, ...errorResponses() },
    },
    handler: async (request) => {
      const started = performance.now();
      const { deciders, at } = await answer(request);
      return deps.metrics.decisions.timed('authzen', 'evaluation', started, evaluateOne(deciders, request.body, at));
    },
  });

  app.post(`${PREFIX}/evaluations`, {
    config,
    serializerCompiler,
    schema: {
      tags,
      operationId: 'evaluateAccessBatch',
      summary: 'Access evaluations: many decisions in one request',
      description:
        'Top-level `subject`, `action`, `resource` and `context` are defaults for each item of `evaluations` (a key an item has replaces the default as a whole). ' +
        'Answers `{ evaluations }` in request order, or a single decision when `evaluations` is absent or empty. An item still incomplete after the defaults is ' +
        '`{ decision: false, context: { error: { status: 400, message } } }`. `options.evaluations_semantic`: `execute_all` (default), `deny_on_first_deny` ' +
        '(stops at the first deny, which carries `context: { code: "200", reason: "deny_on_first_deny" }`) or `permit_on_first_permit`. At most 1000 items.' +
        explainNote,
      security,
      body: EvaluationsBody,
      response: { 200: z.union([EvaluationsResponse, Decision]), ...errorResponses() },
    },
    handler: async (request) => {
      const started = performance.now();
      const { deciders, at } = await answer(request);
      return deps.metrics.decisions.timed('authzen', 'evaluations', started, evaluateMany(deciders, request.body, at));
    },
  });

  const searches = [
    ['subject', 'searchSubjects', SubjectSearchBody, EntityRef, 'the subjects of `subject.type` that may perform the action on the resource'],
    ['resource', 'searchResources', ResourceSearchBody, EntityRef, 'the resources of `resource.type` the subject may perform the action on'],
    [
      'action',
      'searchActions',
      ActionSearchBody,
      z.object({ name: z.string() }),
      'the actions the subject may perform on the resource (no `action` in the request)',
    ],
  ] as const;
  for (const [kind, operationId, body, item, what] of searches) {
    app.post(`${PREFIX}/search/${kind}`, {
      config,
      serializerCompiler,
      schema: {
        tags,
        operationId,
        summary: `Search ${kind}s`,
        description:
          `Lists ${what}, one page at a time: \`page.limit\` (0..1000, default 50), then \`page.token\` = the previous \`page.next_token\` ` +
          'with the request otherwise unchanged (400 `authzen.page_mismatch` if it changed); `next_token` is "" on the last page. Unknown ids or types find nothing.',
        security,
        body,
        response: { 200: searchResponse(item, `AuthZen${kind[0]!.toUpperCase()}${kind.slice(1)}SearchResponse`), ...errorResponses() },
      },
      handler: async (request) => {
        const { deciders, at } = await answer(request);
        return search(deciders, kind, request.body, at);
      },
    });
  }

  app.get('/.well-known/authzen-configuration', {
    config: { public: true },
    schema: {
      tags,
      operationId: 'getAuthzenConfiguration',
      summary: 'AuthZEN policy decision point metadata',
      description: 'Where the AuthZEN endpoints are (absolute URLs). Needs no secret: the environment API secret of each request selects the environment.',
      response: { 200: Configuration },
    },
    handler: async () => {
      const base = deps.config.publicBaseUrl;
      return {
        policy_decision_point: base,
        access_evaluation_endpoint: `${base}${PREFIX}/evaluation`,
        access_evaluations_endpoint: `${base}${PREFIX}/evaluations`,
        search_subject_endpoint: `${base}${PREFIX}/search/subject`,
        search_resource_endpoint: `${base}${PREFIX}/search/resource`,
        search_action_endpoint: `${base}${PREFIX}/search/action`,
      };
    },
  });

  decisionLogRoutes(app, deps.pool);
}
