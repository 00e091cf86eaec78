// The widgets themselves: one framework-free script of web components (./client/), served by the service so
// a page embeds them with no outside CDN, and the CORS preflights of the widget API (answered for any origin: the
// token, and so its origins, is not known before the request itself).
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { App } from '../../../types.ts';
import { preflight } from './cors.ts';

const source = (file: string) => readFileSync(new URL(`./client/${file}`, import.meta.url), 'utf8');
/** The base and the components in one function scope: nothing leaks into the embedding page but the custom elements. */
const SCRIPT = `(() => {\n'use strict';\n${source('widget-base.js')}\n${source('widgets.js')}})();\n`;
const ETAG = `"${createHash('sha256').update(SCRIPT).digest('base64url').slice(0, 22)}"`;

/** Each path of the widget API with the methods it answers. */
export const WIDGET_API_PATHS: Record<string, string> = {
  '/v1/widgets/profile': 'GET, PATCH',
  '/v1/widgets/sessions': 'GET',
  '/v1/widgets/sessions/:sessionId': 'DELETE',
  '/v1/widgets/passkeys': 'GET',
  '/v1/widgets/passkeys/:passkeyId': 'DELETE',
  '/v1/widgets/mfa-factors': 'GET',
  '/v1/widgets/mfa-factors/:factorId': 'DELETE',
  '/v1/widgets/members': 'GET',
  '/v1/widgets/invitations': 'GET, POST',
  '/v1/widgets/invitations/:invitationId/revoke': 'POST',
  '/v1/widgets/api-keys': 'GET, POST',
  '/v1/widgets/api-keys/:keyId/revoke': 'POST',
  '/v1/widgets/audit-logs': 'GET',
};

export function widgetScriptRoutes(app: App) {
  app.get('/v1/widgets/widgets.js', { config: { public: true }, schema: { hide: true } }, (request, reply) => {
    reply.headers({
      'content-type': 'text/javascript; charset=utf-8',
      'cross-origin-resource-policy': 'cross-origin',
      'access-control-allow-origin': '*',
      'cache-control': 'public, max-age=300',
      etag: ETAG,
    });
    if (request.headers['if-none-match'] === ETAG) return reply.status(304).send();
    return reply.send(SCRIPT);
  });
  for (const [url, methods] of Object.entries(WIDGET_API_PATHS)) {
    app.options(url, { config: { public: true }, schema: { hide: true } }, (request, reply) => preflight(request, reply, methods));
  }
}
