import { translateDatabaseError } from '../db/shared/database-errors.ts';

export interface ErrorDetail {
  path: string;
  message: string;
}

/** An error the client caused or may act on: rendered as `{ error, code, requestId, details? }`. */
export class ApiError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(statusCode: number, code: string, message: string, extra: { details?: ErrorDetail[]; headers?: Record<string, string> } = {}) {
    super(message);
    this.statusCode = statusCode;
    this.code = code;
    this.details = extra.details;
    this.headers = extra.headers;
  }
}

export const notFound = (resource: string, id?: string) =>
  new ApiError(404, `${resource}.not_found`, id ? `No ${resource.replace(/_/g, ' ')} with id ${id}.` : `${resource.replace(/_/g, ' ')} not found.`);

/** A child resource looked up within its resolved tenant or organization, or 404 naming it. */
export async function orNotFound<T>(row: Promise<T | null | undefined>, resource: string, id: string): Promise<T> {
  const found = await row;
  if (found === null || found === undefined) throw notFound(resource, id);
  return found;
}

export const invalidField = (path: string, message: string, code = 'request.invalid') =>
  new ApiError(400, code, `Invalid request: ${path} ${message}.`, { details: [{ path, message }] });

export const conflict = (code: string, message: string) => new ApiError(409, code, message);

/** The ApiError of a database integrity violation (db/shared/database-errors.ts), or undefined for any other error. */
export function databaseApiError(error: unknown): ApiError | undefined {
  const refusal = translateDatabaseError(error);
  return refusal && new ApiError(refusal.statusCode, refusal.code, refusal.message, refusal.details ? { details: refusal.details } : {});
}

/**
 * Runs `work`, turning a database integrity violation into its ApiError at once: for callers that answer an
 * ApiError themselves (a SCIM Bulk operation, a chat approval) instead of leaving it to the error handler.
 */
export async function withDatabaseErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw databaseApiError(error) ?? error;
  }
}
