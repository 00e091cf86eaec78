// The page's controller: who is signed in, the redirect to the environment's sign-in and its return, and rendering
// the page (with a notice after an action, or a refusal).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { DatabasePool } from 'slonik';
import { z } from 'zod';
import type { PageUser } from '../../../../db/access/access-page/rows.ts';
import { html } from '../../../oidc/pages/html.ts';
import { defaultPageContext, messagePage, sendPage } from '../../../oidc/pages/page.ts';
import { snapshotOf, UnknownEnvironmentError } from '../../../oidc/providers.ts';
import type { OidcProviders } from '../../../oidc/types.ts';
import { accessPageClientId, ensurePageClient } from './client.ts';
import type { PageCookies, PageSession } from './cookies.ts';
import { versionOf, type PageService } from './service.ts';
import { ACCESS_SCRIPT_NAME } from './script.ts';
import { SignInFailed, type PagePaths, type PageSignIn } from './sign-in.ts';
import { accessPage, NOTICES, type PageInput } from './view.ts';

const POLL_MS = 2000;
const Callback = z.object({ code: z.string().optional(), state: z.string().optional(), error: z.string().optional() });
const Done = z.object({ done: z.enum(Object.keys(NOTICES) as [keyof typeof NOTICES]).optional() });

export type SignedIn = PageSession & { user: PageUser };

export interface PageDeps {
  pool: DatabasePool;
  cookies: PageCookies;
  service: PageService;
  pages: ReturnType<typeof createPages>;
}

export function createPages(deps: {
  pool: DatabasePool;
  oidc: OidcProviders;
  cookies: PageCookies;
  service: PageService;
  signIn: PageSignIn;
  paths: PagePaths & { basePath: string };
}) {
  const { cookies, service, signIn, paths } = deps;
  /** The page's own path (form actions, redirects), below PUBLIC_BASE_URL's path. */
  const action = (environmentId: string, below: string) => `${paths.basePath}/v1/oidc/${environmentId}/access${below}`;
  const providerOf = (environmentId: string) =>
    deps.oidc.get(environmentId).catch((error: unknown) => {
      if (error instanceof UnknownEnvironmentError) return null;
      throw error;
    });
  const contextOf = (provider: Provider | null) => {
    const settings = provider ? snapshotOf(provider).signIn : null;
    return defaultPageContext(
      'en',
      settings
        ? { displayName: settings.displayName, logoUrl: settings.logoUrl, primaryColor: settings.primaryColor, backgroundColor: settings.backgroundColor }
        : {},
    );
  };
  const message = (reply: FastifyReply, status: number, title: string, text: string, link?: { href: string; label: string }) =>
    sendPage(reply, status, {
      ...messagePage(title, text),
      ...(link
        ? {
            body: html`<p>${text}</p>
              <p><a href="${link.href}">${link.label}</a></p>`,
          }
        : {}),
    });

  const signedIn = async (request: FastifyRequest, environmentId: string): Promise<SignedIn | null> => {
    const session = cookies.session(request, environmentId);
    if (!session) return null;
    const user = await service.user(environmentId, session.userId);
    return user?.active ? { ...session, user } : null;
  };

  const render = async (request: FastifyRequest, reply: FastifyReply, session: SignedIn, status: number, extra: Partial<PageInput> = {}) => {
    const env = session.environmentId;
    const view = await service.view(env, session.userId);
    const page = accessPage({
      user: session.user,
      view,
      forms: { csrf: session.csrf, action: (below) => action(env, below) },
      version: versionOf(view),
      stateUrl: action(env, '/state'),
      pollMs: POLL_MS,
      script: action(env, `/assets/${ACCESS_SCRIPT_NAME}`),
      ...extra,
    });
    return sendPage(reply, status, page, contextOf(await providerOf(env)));
  };

  return {
    action,
    signedIn,
    render,

    show: async (request: FastifyRequest, reply: FastifyReply, environmentId: string) => {
      const provider = await providerOf(environmentId);
      if (!provider) return message(reply, 404, 'Not found', 'There is no access-requests page here.');
      const session = await signedIn(request, environmentId);
      const done = Done.safeParse(request.query);
      if (session) return render(request, reply, session, 200, { notice: done.success && done.data.done ? NOTICES[done.data.done] : null });
      const client = await ensurePageClient(
        deps.pool,
        { tenantId: snapshotOf(provider).tenantId, environmentId },
        { callback: signIn.callbackOf(environmentId), signedOut: paths.page(environmentId, '/signed-out') },
      );
      if (!client.active) return message(reply, 403, 'Access requests are turned off', 'An administrator turned this page off for this environment.');
      return reply.redirect(signIn.authorizationUrl(environmentId, cookies.startSignIn(reply, environmentId)), 302);
    },

    callback: async (request: FastifyRequest, reply: FastifyReply, environmentId: string) => {
      const again = { href: action(environmentId, ''), label: 'Sign in again' };
      const query = Callback.safeParse(request.query);
      const pending = cookies.pendingSignIn(request, environmentId);
      if (!query.success || !pending || query.data.state !== pending.state) {
        return message(reply, 400, 'Sign-in expired', 'This sign-in expired or was not started here.', again);
      }
      if (query.data.error || !query.data.code) {
        return message(reply, 400, 'Not signed in', `The sign-in ended without signing you in (${query.data.error ?? 'no code'}).`, again);
      }
      try {
        cookies.startSession(reply, environmentId, await signIn.redeem(environmentId, query.data.code, pending));
      } catch (error) {
        if (!(error instanceof SignInFailed)) throw error;
        request.log.warn({ err: error }, 'access page sign-in failed');
        return message(reply, 400, 'Not signed in', 'The sign-in could not be completed.', again);
      }
      return reply.redirect(action(environmentId, ''), 303);
    },

    /** The provider's logout page, back to the page's "signed out" page. */
    logoutUrl: (environmentId: string) => {
      const url = new URL(`${paths.issuer(environmentId)}/session/end`);
      url.search = new URLSearchParams({
        client_id: accessPageClientId(environmentId),
        post_logout_redirect_uri: paths.page(environmentId, '/signed-out'),
      }).toString();
      return url.href;
    },
  };
}
