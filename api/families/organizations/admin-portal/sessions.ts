// Portal sessions: opening a link (once, within its lifetime) starts one, held by an HttpOnly, SameSite=Lax cookie
// (Secure when the service is served over https) whose value is stored as a hash; expiry and the link's revocation
// are checked on every request. Every POST of the portal carries a CSRF token: an HMAC of the session id under a key
// derived from the master key (the pattern of the sign-in forms, api/families/oidc/sign-in/csrf.ts).
import { createHmac, createSecretKey, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { DatabasePool } from 'slonik';
import { hashSecret } from '../../../../lib/crypto.ts';
import { createPortalSessionQueries } from '../../../../db/organizations/admin-portal/sessions.ts';
import type { PortalSession } from '../../../../db/organizations/admin-portal/rows.ts';
import { recordChange, type RequestOrigin } from '../../../../db/shared/changes.ts';

export const COOKIE = 'iam_portal';

export type OpenRefusal = 'unknown' | 'used' | 'expired' | 'revoked';

export function createPortalSessions(deps: { pool: DatabasePool; masterKey: Buffer; publicBaseUrl: string }) {
  const { pool } = deps;
  const key = createSecretKey(Buffer.from(hkdfSync('sha256', deps.masterKey, Buffer.alloc(0), 'iam admin portal csrf v1', 32)));
  const secure = deps.publicBaseUrl.startsWith('https:');
  const csrfOf = (sessionId: string) => createHmac('sha256', key).update(sessionId).digest('base64url');

  const cookieOf = (request: FastifyRequest) => {
    for (const part of (request.headers.cookie ?? '').split(';')) {
      const [name, ...value] = part.trim().split('=');
      if (name === COOKIE) return value.join('=');
    }
    return null;
  };

  return {
    csrfOf,
    /** Whether `given` is the CSRF token of the session (compared in constant time). */
    checkCsrf: (sessionId: string, given: unknown) => {
      if (typeof given !== 'string') return false;
      const expected = Buffer.from(csrfOf(sessionId));
      const actual = Buffer.from(given);
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    },

    /** The Set-Cookie header of a session's cookie value (or of its removal when null). */
    setCookie: (value: string | null, maxAgeSeconds = 0) =>
      `${COOKIE}=${value ?? ''}; Path=/portal; HttpOnly; SameSite=Lax; Max-Age=${value ? maxAgeSeconds : 0}${secure ? '; Secure' : ''}`,

    /** Opens the link whose token is `token`: a new session and its cookie value, or why not. */
    open: (token: string, origin: RequestOrigin): Promise<{ refused: OpenRefusal } | { cookie: string; maxAgeSeconds: number }> =>
      pool.transaction(async (trx) => {
        const queries = createPortalSessionQueries(trx);
        const link = await queries.findLinkByHash(hashSecret(token));
        if (!link) return { refused: 'unknown' };
        if (link.status !== 'pending') return { refused: link.status === 'opened' ? 'used' : link.status };
        const cookie = randomBytes(32).toString('base64url');
        const portalLink = await queries.markOpened(link.id);
        const session = await queries.insert(portalLink, hashSecret(cookie));
        await recordChange(trx, {
          actor: { type: 'portal_session', id: session.id },
          origin,
          action: 'portal_link.open',
          resource: { type: 'portal_link', id: link.id },
          scope: { organizationId: link.organizationId, tenantId: link.tenantId, environmentId: link.environmentId },
          before: { status: link.status },
          after: { status: portalLink.status },
          event: { type: 'portal_link.opened', data: { portalLink, sessionId: session.id, sessionExpiresAt: session.expiresAt } },
        });
        return { cookie, maxAgeSeconds: link.sessionLifetimeSeconds };
      }),

    /** The session of the request's cookie, or why there is none in force. */
    current: async (request: FastifyRequest): Promise<PortalSession | 'none' | 'ended'> => {
      const cookie = cookieOf(request);
      if (!cookie) return 'none';
      const session = await createPortalSessionQueries(pool).findByCookieHash(hashSecret(cookie));
      if (!session) return 'none';
      return session.active ? session : 'ended';
    },
  };
}

export type PortalSessions = ReturnType<typeof createPortalSessions>;
