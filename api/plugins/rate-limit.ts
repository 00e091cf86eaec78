import rateLimit from '@fastify/rate-limit';
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors.ts';

/** Per principal (per IP when anonymous); runs after authentication has identified the caller. */
export async function registerRateLimit(app: FastifyInstance, options: { max: number; windowMs: number }) {
  await app.register(rateLimit, {
    global: true,
    max: options.max,
    timeWindow: options.windowMs,
    hook: 'preParsing',
    keyGenerator: (request) => (request.principal ? `p:${request.principal.id}` : `ip:${request.ip}`),
    errorResponseBuilder: (_request, context) =>
      new ApiError(
        429,
        'rate_limit.exceeded',
        `Rate limit of ${context.max} requests per ${context.after} exceeded; retry after ${Math.ceil(context.ttl / 1000)} s.`,
      ),
  });
}

/** Keyed by the principal that ./auth.ts resolves in onRequest. */
export const rateLimitPlugin = fp<Parameters<typeof registerRateLimit>[1]>(async (app, options) => registerRateLimit(app, options), {
  name: 'rate-limit',
  fastify: '5.x',
  dependencies: ['errors', 'auth'],
  decorators: { request: ['principal'] },
});
