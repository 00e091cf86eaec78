// oidc-provider answers a grant type the client is not registered for with `invalid_request`; RFC 6749 5.2 names
// that case `unauthorized_client`, which is what relying parties look for.
import type Provider from 'oidc-provider';

const GRANT_NOT_ALLOWED = 'requested grant type is not allowed for this client';

export function conformTokenErrors(provider: Provider) {
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { error?: unknown; error_description?: unknown } | undefined;
    if (ctx.status === 400 && body?.error === 'invalid_request' && body.error_description === GRANT_NOT_ALLOWED) {
      ctx.body = { ...body, error: 'unauthorized_client' };
    }
  });
}
