// The access-requests page of each environment, under its issuer (`{issuer}/access`, i.e. /v1/oidc/{environmentId}/access):
//   GET  /access                      the page, or (no session) the redirect to the environment's sign-in
//   GET  /access/callback             the sign-in's return: the code redeemed, the session cookie set
//   GET  /access/state                `{ version }` of what the page shows (the script polls it)
//   GET  /access/assets/<script>      the page's script
//   POST /access/requests             request access under a policy
//   POST /access/requests/:id/cancel | approve | deny
//   POST /access/grants/:id/activate | revoke
//   POST /access/sign-out             end the page's session (and the provider's, through its logout page)
//   GET  /access/signed-out
// Every POST carries the session's CSRF token (403 page otherwise); a POST without a session goes back to the page,
// which signs in again. Hidden from the OpenAPI document: these are pages, not the API (the API is /elevate).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { messagePage, sendPage } from '../../../oidc/pages/page.ts';
import { html } from '../../../oidc/pages/html.ts';
import type { App } from '../../../types.ts';
import { pageCaller } from './caller.ts';
import type { PageDeps, SignedIn } from './pages.ts';
import { refusalOf } from './service.ts';
import { ACCESS_SCRIPT, ACCESS_SCRIPT_NAME } from './script.ts';
import type { Notice } from './view.ts';

const Params = z.object({ envId: z.string() });
const IdParams = Params.extend({ id: z.uuid() });
const Form = z.record(
  z.string(),
  z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v[0] : v)),
);
const config = { public: true };
const BASE = '/v1/oidc/:envId/access';

type Action = (caller: Awaited<ReturnType<typeof pageCaller>>, id: string, form: Record<string, string | undefined>) => Promise<Notice>;

export function accessPageRoutes(app: App, deps: PageDeps) {
  const { cookies, pages, service } = deps;
  const schema = { hide: true, params: Params };

  app.get(BASE, { config, schema }, async (request, reply) => pages.show(request, reply, request.params.envId));

  app.get(`${BASE}/callback`, { config, schema }, async (request, reply) => pages.callback(request, reply, request.params.envId));

  app.get(`${BASE}/signed-out`, { config, schema }, (request, reply) =>
    sendPage(reply, 200, { title: 'You are signed out', body: html`<p><a href="${pages.action(request.params.envId, '')}">Sign in again</a></p>` }),
  );

  app.get(`${BASE}/assets/:name`, { config, schema: { hide: true, params: Params.extend({ name: z.string() }) } }, (request, reply) => {
    if (request.params.name !== ACCESS_SCRIPT_NAME)
      return reply.status(404).send({ error: 'No such asset.', code: 'access_page.not_found', requestId: request.id });
    return reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=31536000, immutable').send(ACCESS_SCRIPT);
  });

  app.get(`${BASE}/state`, { config, schema }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const session = await pages.signedIn(request, request.params.envId);
    if (!session) return reply.status(401).send({ error: 'Not signed in to the access-requests page.', code: 'access_page.signed_out', requestId: request.id });
    return { version: await service.version(session.environmentId, session.userId) };
  });

  /** A form post: the session and its CSRF token checked, then `run`; a refusal re-renders the page with it. */
  const post = (
    path: string,
    run: (request: FastifyRequest, reply: FastifyReply, session: SignedIn, form: Record<string, string | undefined>) => Promise<unknown>,
  ) =>
    app.post(`${BASE}${path}`, { config, schema: { hide: true } }, async (request, reply) => {
      const { envId } = Params.parse(request.params);
      const session = await pages.signedIn(request, envId);
      if (!session) return reply.redirect(pages.action(envId, ''), 303);
      const form = Form.safeParse(request.body ?? {});
      if (!form.success || !cookies.csrfMatches(session, form.data.csrf)) {
        return sendPage(reply, 403, messagePage('Form expired', 'This form is no longer valid. Go back to the page and try again.'));
      }
      return run(request, reply, session, form.data);
    });

  post('/requests', async (request, reply, session, form) => {
    const caller = await pageCaller(deps.pool, request, session);
    try {
      const { grant } = await service.request(caller, form);
      return reply.redirect(pages.action(session.environmentId, `?done=${grant ? 'granted' : 'requested'}`), 303);
    } catch (error) {
      const refusal = refusalOf(error);
      const status = error instanceof z.ZodError ? 400 : (error as { statusCode: number }).statusCode;
      return pages.render(request, reply, session, status, { error: { policyId: form.policyId ?? '', form, refusal } });
    }
  });

  const act = (path: string, action: Action) =>
    post(path, async (request, reply, session, form) => {
      const id = IdParams.safeParse(request.params);
      if (!id.success) return pages.render(request, reply, session, 404, { alert: 'There is no such request or grant.' });
      const caller = await pageCaller(deps.pool, request, session);
      try {
        const notice = await action(caller, id.data.id, form);
        return reply.redirect(pages.action(session.environmentId, `?done=${notice}`), 303);
      } catch (error) {
        const status = error instanceof z.ZodError ? 400 : (error as { statusCode: number }).statusCode;
        return pages.render(request, reply, session, status, { alert: refusalOf(error).message });
      }
    });

  act('/requests/:id/cancel', async (caller, id) => (await service.cancel(caller, id), 'cancelled'));
  act('/requests/:id/approve', async (caller, id, form) =>
    (await service.decide(caller, id, 'approve', form.reason)).request.state === 'approved' ? 'approved' : 'recorded',
  );
  act('/requests/:id/deny', async (caller, id, form) => (await service.decide(caller, id, 'deny', form.reason), 'denied'));
  act('/grants/:id/activate', async (caller, id) => (await service.activate(caller, id), 'activated'));
  act('/grants/:id/revoke', async (caller, id, form) => (await service.revoke(caller, id, form.reason), 'ended'));

  post('/sign-out', async (_request, reply, session) => {
    cookies.endSession(reply, session.environmentId);
    return reply.redirect(pages.logoutUrl(session.environmentId), 303);
  });
}
