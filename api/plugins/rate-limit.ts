import rateLimit from '@fastify/rate-limit';
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';
import { countsPerCredential } from './credential-rate-limit.ts';
import { presentsEnvironmentSecret } from './environment-secret.ts';
import { describeWindow } from './rate-window.ts';

/**
 * Per principal (per IP when anonymous); runs after authentication has identified the caller. Routes authenticated by a
 * credential are counted per credential instead (./credential-rate-limit.ts): registered first, it turns this limiter's
 * hook off on those routes (`config.rateLimit: false`); the allow list keeps them out whatever the order.
 */
export async function registerRateLimit(app: FastifyInstance, options: { max: number; windowMs: number }) {
  const window = describeWindow(options.windowMs);
  await app.register(rateLimit, {
    global: true,
    max: options.max,
    timeWindow: options.windowMs,
    hook: 'preParsing',
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
