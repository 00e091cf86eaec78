// CORS of the widget API, as the account endpoints answer it (api/families/oidc/account/cors.ts): a preflight is
// answered for any origin (the token is not known yet); a request gets Access-Control-Allow-Origin for its origin
// until its token is known, and an origin that is not one of the token's is refused (403, the header removed) before
// anything happens. No cookies: the token is the credential. The answers may be read from other origins
// (Cross-Origin-Resource-Policy: cross-origin), which the service's default headers forbid.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { preflight as answerPreflight } from '../../../common/cors-preflight.ts';
import { ApiError } from '../../../errors.ts';

const MAX_AGE_SECONDS = 600;

/** Answers a preflight (OPTIONS) for `methods`. */
export const preflight = (request: FastifyRequest, reply: FastifyReply, methods: string) => answerPreflight(request, reply, methods, MAX_AGE_SECONDS);

export function allowOrigin(request: FastifyRequest, reply: FastifyReply) {
  reply.headers({ vary: 'Origin', 'cross-origin-resource-policy': 'cross-origin' });
  const origin = request.headers.origin;
  if (origin) reply.headers({ 'access-control-allow-origin': origin, 'access-control-expose-headers': 'WWW-Authenticate' });
}

/** Refuses a browser origin the token does not list; a request without Origin (no browser) passes. */
export function checkOrigin(request: FastifyRequest, reply: FastifyReply, origins: readonly string[]) {
  const origin = request.headers.origin;
  if (origin === undefined || (origin !== 'null' && origins.includes(origin))) return;
  reply.removeHeader('access-control-allow-origin');
  reply.removeHeader('access-control-expose-headers');
  throw new ApiError(403, 'widgets.origin_not_allowed', `The origin ${origin} is not an origin of this widget token.`);
}
