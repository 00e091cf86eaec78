// Every failure under a SCIM mount as a SCIM error body (RFC 7644 §3.12): authentication (401), unknown resources
// and routes (404), body too large (413), unsupported media type (415), malformed JSON (400 invalidSyntax).
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, ScimError, type ScimType } from '../../../../lib/scim/errors.ts';
import { ApiError, databaseApiError } from '../../../errors.ts';

export const SCIM_MEDIA_TYPE = 'application/scim+json';

export const ScimErrorResponse = z
  .object({
    schemas: z.array(z.string()),
    status: z.string().describe('The HTTP status, as a string'),
    scimType: z.string().optional().describe('invalidFilter, tooMany, uniqueness, mutability, invalidSyntax, invalidPath, noTarget, invalidValue'),
    detail: z.string(),
  })
  .meta({ id: 'ScimError', description: 'A SCIM error (RFC 7644 §3.12)' });

/** The documented error responses of a SCIM operation. */
export const scimErrors = (...statuses: number[]) => Object.fromEntries([401, ...statuses].map((s) => [s, ScimErrorResponse]));

/** The SCIM error of a failure (a service's ApiError too: HRIS writes through the HRIS service functions). */
export function classify(error: FastifyError): ScimError {
  if (error instanceof ScimError) return error;
  const database = databaseApiError(error);
  if (database) return classify(database as unknown as FastifyError);
  if (error instanceof ApiError) {
    const scimType: ScimType | undefined = error.statusCode === 409 ? 'uniqueness' : error.statusCode === 400 ? 'invalidValue' : undefined;
    return new ScimError(error.statusCode, error.message, scimType);
  }
  if (hasZodFastifySchemaValidationErrors(error))
    return new ScimError(400, 'The request is not a SCIM message of the expected shape: a JSON object.', 'invalidSyntax');
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ScimError(413, 'The request body is larger than maxPayloadSize (1048576 bytes).');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ScimError(415, `Content-Type must be ${SCIM_MEDIA_TYPE} or application/json.`);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ScimError(400, 'The request body is not valid JSON.', 'invalidSyntax');
  }
  if (error instanceof SyntaxError) return new ScimError(400, 'The request body is not valid JSON.', 'invalidSyntax');
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) return new ScimError(error.statusCode, error.message);
  return new ScimError(500, 'Something went wrong on our side; the request id identifies it in our logs.');
}

export function registerScimErrors(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const scim = classify(error);
    if (scim.status >= 500) request.log.error({ err: error }, 'unhandled error');
    if ((error instanceof ApiError || error instanceof ScimError) && error.headers) reply.headers(error.headers);
    return reply
      .status(scim.status)
      .type(SCIM_MEDIA_TYPE)
      .send(errorBody(scim.status, scim.message, scim.scimType));
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .status(404)
      .type(SCIM_MEDIA_TYPE)
      .send(errorBody(404, `No SCIM endpoint ${request.method} ${request.url.split('?')[0]}.`)),
  );
}
