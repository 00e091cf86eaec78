// Widget tokens (api/families/widgets/widgets) are JWTs of their own `typ`, signed with an environment's OpenID keys.
// They are accepted by the widget API only: every other route that takes a bearer credential refuses one with 403,
// which the auth and environment-secret plugins decide from the token's header alone, before any verification.
import { decodeProtectedHeader } from 'jose';
import { ApiError } from '../errors.ts';

/** The JOSE `typ` header of widget tokens. */
export const WIDGET_TYP = 'widget+jwt';

/** Whether an `Authorization` header presents a widget token (its signature is not checked here). */
export function presentsWidgetToken(authorization: string | undefined): boolean {
  const token = authorization && /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i.exec(authorization)?.[1];
  if (!token || token.split('.').length !== 3) return false;
  try {
    return decodeProtectedHeader(token).typ === WIDGET_TYP;
  } catch {
    return false; // not a JWS at all
  }
}

export const widgetTokenRefused = () =>
  new ApiError(403, 'auth.widget_token', 'A widget token is accepted only by the widget API (/v1/widgets/…); it is no management credential.');
