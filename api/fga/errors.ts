// Errors of the FGA API in OpenFGA's terms: an OpenFGA error code (`validation_error`, `invalid_tuple`…) with the
// status OpenFGA answers it with. The engine's FgaError (lib/fga/types.ts) is always a 400.
import { ApiError, type ErrorDetail } from '../errors.ts';
import { FgaError } from '../../lib/fga/types.ts';

export class FgaApiError extends ApiError {
  constructor(status: number, code: string, message: string, details?: ErrorDetail[]) {
    super(status, code, message, details ? { details } : {});
  }

  /** The engine's error as the API answers it (400 with its code), an FgaApiError as it is, else undefined. */
  static from(error: unknown): FgaApiError | undefined {
    if (error instanceof FgaApiError) return error;
    if (error instanceof FgaError) {
      if (!error.position) return new FgaApiError(400, error.code, error.message);
      const at = `line ${error.position.line}, column ${error.position.column}`;
      const message = /\bline \d/.test(error.message) ? error.message : `${error.message} (${at})`;
      return new FgaApiError(400, error.code, message, [{ path: 'body', message: at }]);
    }
    return undefined;
  }
}

/** 400 `validation_error` naming the field, in the service's words (`Invalid request: body.x must …`). */
export const fgaInvalid = (path: string, message: string, code = 'validation_error') =>
  new FgaApiError(400, code, `Invalid request: ${path} ${message}.`, [{ path, message }]);
