import rateLimit, { type FastifyRateLimitStore } from '@fastify/rate-limit';
import fp from 'fastify-plugin';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { ApiError } from '../errors.ts';
import type { SharedWindows } from '../rate-limits/shared-windows.ts';
import { countsPerCredential } from './credential-rate-limit.ts';
import { presentsEnvironmentSecret } from './environment-secret.ts';
import { describeWindow, type Window } from './rate-window.ts';

type Answer = Parameters<FastifyRateLimitStore['incr']>[1];

/**
 * @fastify/rate-limit's store over the windows shared by every instance: `incr` answers at once far from the limit
 * and after the next sync near it. A route with a rate limit of its own (`config.rateLimit: {…}`) counts apart.
 */
class SharedStore implements FastifyRateLimitStore {
  readonly #windows: SharedWindows;
  readonly #namespace: string;

  constructor(windows: SharedWindows, namespace: string) {
    this.#windows = windows;
    this.#namespace = namespace;
  }

  incr(key: string, cb: Answer, timeWindow: number, max: number) {
    const window = this.#windows.hit(`${this.#namespace}:${key}`, max, timeWindow);
    if (window instanceof Promise) window.then((w) => answer(cb, w), cb);
    else answer(cb, window);
  }

  // The plugin passes the route's merged limit options, the route under `routeInfo` (its typings say otherwise).
  child(options: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
    const route = (options as unknown as { routeInfo?: Partial<RouteOptions> }).routeInfo;
    return new SharedStore(this.#windows, `${this.#namespace}:${String(route?.method)} ${route?.url}`);
  }
}

const answer = (cb: Answer, window: Window) => cb(null, { current: window.count, ttl: Math.max(0, window.resetAt - Date.now()) });

/**
 * Per principal (per IP when anonymous); runs after authentication has identified the caller. Routes authenticated by a
 * credential are counted per credential instead (./credential-rate-limit.ts): registered first, it turns this limiter's
 * hook off on those routes (`config.rateLimit: false`); the allow list keeps them out whatever the order. Counted
 * across every instance of the database (`windows`).
 */
export async function registerRateLimit(app: FastifyInstance, options: { max: number; windowMs: number; windows: SharedWindows }) {
  const window = describeWindow(options.windowMs);
  await app.register(rateLimit, {
    global: true,
    max: options.max,
    timeWindow: options.windowMs,
    hook: 'preParsing',
    store: class extends SharedStore {
      constructor() {
        super(options.windows, 'req');
      }
    },
    allowList: (request) => {
      const config = request.routeOptions.config;
      return countsPerCredential(config) && (!config.orBearer || presentsEnvironmentSecret(request));
    },
    keyGenerator: (request) => (request.principal ? `p:${request.principal.id}` : `ip:${request.ip}`),
    errorResponseBuilder: (_request, context) =>
      new ApiError(429, 'rate_limit.exceeded', `Rate limit of ${context.max} requests per ${window} exceeded; retry in ${Math.ceil(context.ttl / 1000)} s.`),
  });
}

/** Keyed by the principal that ./auth.ts resolves in onRequest. */
export const rateLimitPlugin = fp<Parameters<typeof registerRateLimit>[1]>(async (app, options) => registerRateLimit(app, options), {
  name: 'rate-limit',
  fastify: '5.x',
  dependencies: ['errors', 'auth'],
  decorators: { request: ['principal'] },
});
