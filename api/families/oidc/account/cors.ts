// CORS of the account endpoints, as oidc-provider answers it for userinfo (its default clientBasedCORS): a preflight
// is answered for any origin (the token is not known yet); a request gets Access-Control-Allow-Origin for its
// origin, and once the token's client is known, an origin that is not the origin of one of the client's redirect
// URIs is refused (400, the header removed), before anything changes. No credentials (cookies) are allowed: the
// access token is the credential.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { preflight as answerPreflight } from '../../../common/cors-preflight.ts';
import { ApiError } from '../../../errors.ts';
import type { AccountToken } from '../../../account/access-token.ts';

const MAX_AGE_SECONDS = 3600;

/** Answers a preflight (OPTIONS) for `methods`. */
export const preflight = (request: FastifyRequest, reply: FastifyReply, methods: string) => answerPreflight(request, reply, methods, MAX_AGE_SECONDS);

/** A request's CORS headers, before its token is checked (so a browser app can read a 401 and its challenge). */
export function allowOrigin(request: FastifyRequest, reply: FastifyReply) {
  reply.header('vary', 'Origin');
  const origin = request.headers.origin;
  if (origin) reply.headers({ 'access-control-allow-origin': origin, 'access-control-expose-headers': 'WWW-Authenticate, Password-Warning' });
}

/** Refuses a browser origin the token's client does not redirect to. */
export function checkOrigin(request: FastifyRequest, reply: FastifyReply, token: AccountToken) {
  const origin = request.headers.origin;
  if (origin === undefined || (origin !== 'null' && token.origins.includes(origin))) return;
  reply.removeHeader('access-control-allow-origin');
  reply.removeHeader('access-control-expose-headers');
  throw new ApiError(400, 'account.origin_not_allowed', `The origin ${origin} is not an origin of the redirect URIs of the token’s client.`);
}
