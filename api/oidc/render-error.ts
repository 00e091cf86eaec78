// Errors the provider cannot send back to a redirect URI (an unknown client, a bad redirect_uri…): answered as
// RFC 6749 JSON, never as an HTML page of the provider's own.
import type { Configuration } from 'oidc-provider';

export const renderError: NonNullable<Configuration['renderError']> = (ctx, out) => {
  ctx.type = 'application/json';
  ctx.set('cache-control', 'no-store');
  ctx.body = JSON.stringify({ error: out.error, ...(out.error_description ? { error_description: out.error_description } : {}) });
};
