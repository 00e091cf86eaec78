// Rate limits of the routes a credential authenticates instead of a bearer token: environment API secrets and
// provisioning tokens (./environment-secret.ts), and signed callbacks such as Slack's interactivity endpoint
// (`config.credentialParam`). They count per credential and per minute, so the tenants behind one address never share
// a budget and SCIM never pays for AuthZEN. Failed authentications (401) count per client address in a bucket of their
// own; once it is full, that address may only present credentials this instance has already verified, so a flood of
// bad secrets neither reaches the database nor starves an authenticated caller. Counted across every instance of the
// database (api/rate-limits/shared-windows.ts) with no database access per request while a key is far from its limit.
import type {
  FastifyContextConfig,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onResponseHookHandler,
  preHandlerHookHandler,
  preValidationHookHandler,
} from 'fastify';
import type { ApiError } from '../errors.ts';
import { andThen, type SharedWindows } from '../rate-limits/shared-windows.ts';
import { rateLimitHeaders, rateLimited, type Window } from './rate-window.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route authenticates by a credential named by this path parameter (Slack: the channel whose secret signs). */
    credentialParam?: string;
  }
}

const MINUTE = 60_000;

/** A route option's hooks as a list (Fastify takes one hook or an array). */
const hooks = <T>(value: T | T[] | undefined): T[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

export interface CredentialRateLimitOptions {
  /** Requests a minute per credential named by a path parameter (`config.credentialParam`). */
  max: number;
  apiSecretMax: number;
  provisioningTokenMax: number;
  authFailureMax: number;
}

export interface CredentialRateLimits {
  /** The default requests a minute of each kind of environment credential. */
  defaults: { api_secret: number; provisioning_token: number };
  /**
   * Counts a request of an authenticated credential and sets the x-ratelimit headers; the 429 when over `max` this
   * minute. A promise only near the limit, where the decision waits for the instances' shared count.
   */
  take(reply: FastifyReply, key: string, max: number): ApiError | undefined | Promise<ApiError | undefined>;
  /** The 429 of an address whose failed authentications filled its bucket this minute, if they did (see `take`). */
  refusedAddress(request: FastifyRequest): ApiError | undefined | Promise<ApiError | undefined>;
}

/** Whether a route is counted here (per credential) rather than by the general limiter (per principal or address). */
export const countsPerCredential = (config: FastifyContextConfig) => Boolean(config.environmentSecret || config.provisioning || config.credentialParam);

export function registerCredentialRateLimits(app: FastifyInstance, options: CredentialRateLimitOptions, windows: SharedWindows): CredentialRateLimits {
  const decide = (reply: FastifyReply, max: number, window: Window) => {
    if (window.count > max) return rateLimited(max, MINUTE, window);
    reply.headers(rateLimitHeaders(max, window));
    return undefined;
  };
  const limits: CredentialRateLimits = {
    defaults: { api_secret: options.apiSecretMax, provisioning_token: options.provisioningTokenMax },
    take: (reply, key, max) => andThen(windows.hit(`cred:${key}`, max, MINUTE), (window) => decide(reply, max, window)),
    refusedAddress: (request) =>
      andThen(windows.peek(`authfail:${request.ip}`, options.authFailureMax), (window) =>
        !window || window.count < options.authFailureMax
          ? undefined
          : rateLimited(options.authFailureMax, MINUTE, window, 'Too many failed authentications from this address'),
      ),
  };

  // Attached to the routes counted here only, so no other route pays for them.
  const countFailure: onResponseHookHandler = (request, reply, done) => {
    if (reply.statusCode === 401) void windows.hit(`authfail:${request.ip}`, options.authFailureMax, MINUTE);
    done();
  };
  // Routes whose handler checks the credential itself (a signature over the body): a full failure bucket refuses
  // before the route's own check; a request that passed it counts against its credential.
  const refuseAddress: preValidationHookHandler = (request, _reply, done) => void andThen(limits.refusedAddress(request), done);
  const countCredential =
    (param: string): preHandlerHookHandler =>
    (request, reply, done) =>
      void andThen(limits.take(reply, `${param}:${(request.params as Record<string, string>)[param]}`, options.max), done);
  app.addHook('onRoute', (route) => {
    const config = (route.config ?? {}) as FastifyContextConfig;
    if (!countsPerCredential(config)) return;
    // Not counted by the general limiter (./rate-limit.ts, whose onRoute hook runs after this one): no hook of it here.
    // A route that also takes bearer tokens keeps it for them; its allow list lets the secrets through.
    if (!config.orBearer) route.config = { ...config, rateLimit: false };
    route.onResponse = [...hooks(route.onResponse), countFailure];
    const param = config.credentialParam;
    if (!param) return;
    route.preValidation = [refuseAddress, ...hooks(route.preValidation)];
    route.preHandler = [...hooks(route.preHandler), countCredential(param)];
  });
  return limits;
}
