// The page's two cookies, sealed (AES-256-GCM, lib/crypto.ts) under a key derived from the master key for this use
// only, HttpOnly, SameSite=Lax and scoped to the page's path of one environment:
// - the sign-in in progress (state, nonce, PKCE verifier), for ten minutes, between the redirect to the environment's
//   authorization endpoint and the callback;
// - the session once signed in: the directory user, when it ends and the CSRF token its forms carry.
// Nothing is stored server-side: signing out clears the cookie, and every request re-reads the user (a deactivated or
// deleted user is signed out at once).
import { hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { decrypt, encrypt } from '../../../../lib/crypto.ts';

const SESSION = 'iam_access_session';
const SIGN_IN = 'iam_access_sign_in';
const SIGN_IN_SECONDS = 600;

const Session = z.object({ kind: z.literal('session'), environmentId: z.string(), userId: z.string(), csrf: z.string(), expiresAt: z.number() });
const SignIn = z.object({
  kind: z.literal('sign-in'),
  environmentId: z.string(),
  state: z.string(),
  nonce: z.string(),
  verifier: z.string(),
  expiresAt: z.number(),
});
export type PageSession = z.infer<typeof Session>;
export type PendingSignIn = z.infer<typeof SignIn>;

const random = () => randomBytes(32).toString('base64url');

function cookieOf(request: FastifyRequest, name: string): string | null {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return null;
}

export function createPageCookies(masterKey: Buffer, options: { secure: boolean; sessionSeconds: number; pathOf: (environmentId: string) => string }) {
  const key = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'iam access page cookies v1', 32));
  const attributes = (environmentId: string, maxAge: number) =>
    [`Path=${options.pathOf(environmentId)}`, 'HttpOnly', 'SameSite=Lax', `Max-Age=${maxAge}`, ...(options.secure ? ['Secure'] : [])].join('; ');
  const set = (reply: FastifyReply, name: string, environmentId: string, value: object | null, maxAge: number) => {
    const text = value === null ? '' : encrypt(key, JSON.stringify(value));
    const previous = reply.getHeader('set-cookie');
    const lines = previous === undefined ? [] : Array.isArray(previous) ? previous : [String(previous)];
    reply.header('set-cookie', [...lines, `${name}=${text}; ${attributes(environmentId, value === null ? 0 : maxAge)}`]);
  };
  const read = <T extends { environmentId: string; expiresAt: number }>(request: FastifyRequest, name: string, schema: z.ZodType<T>, environmentId: string) => {
    const sealed = cookieOf(request, name);
    if (!sealed) return null;
    try {
      const parsed = schema.safeParse(JSON.parse(decrypt(key, sealed)));
      return parsed.success && parsed.data.environmentId === environmentId && parsed.data.expiresAt > Date.now() ? parsed.data : null;
    } catch {
      return null;
    }
  };

  return {
    /** Starts a sign-in: its state, nonce and PKCE verifier, remembered in the sign-in cookie. */
    startSignIn: (reply: FastifyReply, environmentId: string): PendingSignIn => {
      const pending = {
        kind: 'sign-in' as const,
        environmentId,
        state: random(),
        nonce: random(),
        verifier: random(),
        expiresAt: Date.now() + SIGN_IN_SECONDS * 1000,
      };
      set(reply, SIGN_IN, environmentId, pending, SIGN_IN_SECONDS);
      return pending;
    },
    pendingSignIn: (request: FastifyRequest, environmentId: string) => read(request, SIGN_IN, SignIn, environmentId),

    /** Ends the sign-in and opens the session of `userId`. */
    startSession: (reply: FastifyReply, environmentId: string, userId: string) => {
      set(reply, SIGN_IN, environmentId, null, 0);
      const session = { kind: 'session' as const, environmentId, userId, csrf: random(), expiresAt: Date.now() + options.sessionSeconds * 1000 };
      set(reply, SESSION, environmentId, session, options.sessionSeconds);
    },
    session: (request: FastifyRequest, environmentId: string) => read(request, SESSION, Session, environmentId),
    endSession: (reply: FastifyReply, environmentId: string) => set(reply, SESSION, environmentId, null, 0),

    /** Whether a form's `csrf` is the session's token (constant time). */
    csrfMatches: (session: PageSession, given: unknown) => {
      if (typeof given !== 'string') return false;
      const [a, b] = [Buffer.from(given), Buffer.from(session.csrf)];
      return a.length === b.length && timingSafeEqual(a, b);
    },
  };
}

export type PageCookies = ReturnType<typeof createPageCookies>;
