// The CORS preflight of endpoints whose credential is a bearer token (the account endpoints, the widget API): answered
// for any origin, since the token, and so the origins it allows, is not known until the request itself.
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Answers a preflight (OPTIONS) for `methods`, cacheable for `maxAgeSeconds`. */
export function preflight(request: FastifyRequest, reply: FastifyReply, methods: string, maxAgeSeconds: number) {
  reply.header('vary', 'Origin');
  const origin = request.headers.origin;
  if (origin && request.headers['access-control-request-method']) {
    reply.headers({ 'access-control-allow-origin': origin, 'access-control-max-age': String(maxAgeSeconds), 'access-control-allow-methods': methods });
    const asked = request.headers['access-control-request-headers'];
    if (asked) reply.header('access-control-allow-headers', asked);
  }
  return reply.status(204).send();
}
