// Part 1 of bench:sign-in: the static baseline route, registered on the service's own app by the bench only (the
// product has no such route), and the authorization request each sign-in user starts.
import { createHash, randomBytes } from 'node:crypto';
import type { App } from '../../api/types.ts';
import { REDIRECT_URI } from '../oidc/setup.ts';

export const STATIC_PATH = '/bench/static-page';

/**
 * Registers GET STATIC_PATH on the app: a fixed HTML document, public like the sign-in pages. `setSize` makes it
 * exactly as long as a measured sign-in page (padded in a comment); until then it is empty.
 */
export function registerStaticPage(app: App) {
  let html = '';
  app.get(STATIC_PATH, { config: { public: true, readOnly: true }, schema: { hide: true } }, (_request, reply) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html),
  );
  return {
    setSize: (bytes: number) => {
      const shell = '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Static</title></head><body><p>Static page.</p><!---->';
      const tail = '</body></html>';
      html = shell.replace('<!---->', `<!--${'x'.repeat(Math.max(0, bytes - shell.length - tail.length))}-->`) + tail;
      return Buffer.byteLength(html);
    },
  };
}

/** An authorization request (code + PKCE) of the bench's client: each GET of it starts a new interaction. */
export function authorizeUrl(issuer: string, clientId: string): string {
  const url = new URL(`${issuer}/auth`);
  const b64url = (bytes: Buffer) => bytes.toString('base64url');
  for (const [k, v] of Object.entries({
    client_id: clientId,
    response_type: 'code',
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile email',
    state: b64url(randomBytes(12)),
    code_challenge: b64url(
      createHash('sha256')
        .update(b64url(randomBytes(32)))
        .digest(),
    ),
    code_challenge_method: 'S256',
  }))
    url.searchParams.set(k, v);
  return url.href;
}
