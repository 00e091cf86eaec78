// One place turns every failure into `{ error, code, requestId, details? }` with the right status.
import fp from 'fastify-plugin';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import findMyWay, { type HTTPMethod } from 'find-my-way';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { ApiError, databaseApiError, type ErrorDetail } from '../errors.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Failures in RFC 6749 §5.2 form `{ error, error_description }` instead of ours (the token endpoint). */
    oauthErrors?: boolean;
    /** Failures in OpenFGA's form `{ code, message }` (its error codes) besides our `error` and `requestId` (the FGA API). */
    openFgaErrors?: boolean;
  }
}

const METHODS: HTTPMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** The RFC 6749 `error` for a status. RFC 6749 has no code for rate limiting; `rate_limited` is ours. */
function oauthError(status: number): string {
  if (status === 401) return 'invalid_client';
  if (status === 429) return 'rate_limited';
  return status >= 500 ? 'server_error' : 'invalid_request';
}

/**
 * OpenFGA's error code for one of ours. Codes without a dot are OpenFGA's already (the FGA API raises them); the
 * others are the service's own, named by what OpenFGA answers with that status.
 */
export function openFgaCode(status: number, code: string): string {
  if (!code.includes('.')) return code;
  if (status === 401) return code.startsWith('auth.missing_') ? 'bearer_token_missing' : 'unauthenticated';
  if (status === 403) return 'forbidden';
  if (status === 404) return code === 'store.not_found' ? 'store_id_not_found' : 'undefined_endpoint';
  if (status === 405) return 'undefined_endpoint';
  if (status === 429) return 'rate_limit_exceeded';
  if (status >= 500) return 'internal_error';
  return 'validation_error';
}

function send(request: FastifyRequest, reply: FastifyReply, status: number, code: string, error: string, details?: ErrorDetail[]) {
  if (request.routeOptions.config?.oauthErrors) {
    return reply
      .status(status)
      .type('application/json; charset=utf-8')
      .send({ error: oauthError(status), error_description: error });
  }
  if (request.routeOptions.config?.openFgaErrors) {
    return reply
      .status(status)
      .type('application/json; charset=utf-8')
      .send({ code: openFgaCode(status, code), message: error, error, requestId: request.id, ...(details ? { details } : {}) });
  }
  return reply
    .status(status)
    .type('application/json; charset=utf-8')
    .send({ error, code, requestId: request.id, ...(details ? { details } : {}) });
}

function validationDetails(
  error: FastifyError & { validation: { instancePath: string; message?: string; keyword: string; params: Record<string, unknown> }[] },
): ErrorDetail[] {
  const where = error.validationContext ?? 'body';
  return error.validation.flatMap((v) => {
    const base = [where, ...v.instancePath.split('/').filter(Boolean)].join('.');
    if (v.keyword === 'unrecognized_keys') {
      return ((v.params.keys as string[]) ?? []).map((key) => ({ path: `${base}.${key}`, message: 'is not a known field' }));
    }
    return [{ path: base, message: v.message ?? 'is invalid' }];
  });
}

/** Errors Fastify raises before routing (a path that is not valid percent-encoding), in the service's error shape. */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 400;
  return send(request, reply, status, 'request.bad_url', 'The request path is not valid: a parameter is not valid percent-encoding.');
}

export function registerErrorHandling(app: FastifyInstance) {
  // Fastify parses text/plain by default; the API speaks JSON, so anything else is 415.
  app.removeContentTypeParser('text/plain');

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = error instanceof ApiError ? error : databaseApiError(error);
    if (apiError) {
      if (apiError.headers) reply.headers(apiError.headers);
      return send(request, reply, apiError.statusCode, apiError.code, apiError.message, apiError.details);
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const details = validationDetails(error as never);
      const summary = details.map((d) => `${d.path} ${d.message}`).join('; ');
      return send(request, reply, 400, 'request.invalid', `Invalid request: ${summary}.`, details);
    }
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return send(request, reply, 413, 'request.too_large', 'The request body is larger than the 1 MiB limit.');
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return send(
          request,
          reply,
          415,
          'request.unsupported_media_type',
          `Content-Type ${request.headers['content-type'] ?? '(none)'} is not supported; send application/json.`,
        );
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return send(request, reply, 400, 'request.malformed_json', 'The request body is not valid JSON.');
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return send(request, reply, 400, 'request.invalid', 'The request body is empty but Content-Type is application/json.');
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
        return send(request, reply, 400, 'request.invalid', 'The Content-Length header does not match the body.');
    }
    if (error.statusCode === 429) {
      return send(request, reply, 429, 'rate_limit.exceeded', error.message);
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      const code = error instanceof SyntaxError ? 'request.malformed_json' : 'request.invalid';
      return send(request, reply, error.statusCode, code, error instanceof SyntaxError ? 'The request body is not valid JSON.' : error.message);
    }
    request.log.error({ err: error }, 'unhandled error');
    return send(request, reply, 500, 'internal.error', 'Something went wrong on our side; the request id identifies it in our logs.');
  });

  // A shadow router answers "does this path exist with another method?" so the 404 handler can say 405. It is built
  // by the first 404 (about 1.5 MB for the service's routes, which most instances never need).
  const declared: [HTTPMethod, string][] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (METHODS.includes(method as HTTPMethod)) declared.push([method as HTTPMethod, route.url]);
  });
  let shadow: ReturnType<typeof findMyWay> | undefined;
  const routes = () => {
    if (shadow) return shadow;
    shadow = findMyWay({ ignoreTrailingSlash: false });
    for (const [method, url] of declared.splice(0)) if (!shadow.hasRoute(method, url)) shadow.on(method, url, () => {});
    return shadow;
  };

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((m) => routes().find(m, path));
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      return send(request, reply, 405, 'request.method_not_allowed', `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}.`);
    }
    return send(request, reply, 404, 'route.not_found', `No route ${request.method} ${path}.`);
  });
}

/** The error shape of every answer; registered first (its 404/405 router must see every route). */
export const errorsPlugin = fp(async (app) => registerErrorHandling(app), { name: 'errors', fastify: '5.x' });
