// The portal itself: server-rendered pages under /portal (hidden from the OpenAPI document, like the hosted sign-in).
//   GET  /portal/open/<token>            opens a link once: a session cookie, then the page of its intent
//   GET  /portal                         the page of the session's intent
//   POST /portal/<action>                a form of that page (CSRF token required), answered by the page again
//   GET  /portal/domains/<id>/status     a domain's verification state (JSON), polled by the page's script
//   GET  /portal/sso/test/callback       where a "test connection" sign-in comes back
import formbody from '@fastify/formbody';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DatabasePool } from 'slonik';
import { createTenantDomainQueries } from '../../../../db/tenants/domains/queries.ts';
import type { PortalIntent, PortalSession } from '../../../../db/organizations/admin-portal/rows.ts';
import { ApiError } from '../../../errors.ts';
import { html, type Html } from '../../../oidc/pages/html.ts';
import type { App } from '../../../types.ts';
import { portalCaller } from './caller.ts';
import { errorBox, sendPortalPage } from './portal-page.ts';
import type { PortalServices } from './services.ts';
import type { OpenRefusal, PortalSessions } from './sessions.ts';
import type { Intent, PortalContext } from './intents/intent.ts';
import { sso } from './intents/sso.ts';
import { directorySync } from './intents/directory-sync.ts';
import { DOMAIN_SCRIPT, DOMAIN_SCRIPT_PATH, domainVerification } from './intents/domains.ts';
import { auditLogs } from './intents/audit-logs.ts';
import { logStreams } from './intents/log-streams.ts';
import { finishConnectionTest, TEST_CALLBACK_PATH } from './intents/sso-test.ts';

const INTENTS: Record<PortalIntent, Intent> = {
  sso,
  directory_sync: directorySync,
  domain_verification: domainVerification,
  audit_logs: auditLogs,
  log_streams: logStreams,
};

const REFUSALS: Record<OpenRefusal, { status: number; title: string; message: string }> = {
  unknown: { status: 404, title: 'Link not found', message: 'This setup link is not valid. Ask your administrator for a new one.' },
  used: { status: 410, title: 'Link already used', message: 'This setup link has already been opened; a link opens once. Ask for a new one.' },
  expired: { status: 410, title: 'Link expired', message: 'This setup link has expired. Ask your administrator for a new one.' },
  revoked: { status: 410, title: 'Link revoked', message: 'This setup link was revoked. Ask your administrator for a new one.' },
};

export interface PortalRouteDeps {
  pool: DatabasePool;
  masterKey: Buffer;
  publicBaseUrl: string;
  allowPrivateNetworkTargets: boolean;
  sessions: PortalSessions;
  services: PortalServices;
}

type Query = Record<string, string | undefined>;
const config = { public: true };
const schema = { hide: true };

export async function portalRoutes(app: App, deps: PortalRouteDeps) {
  await app.register(formbody);
  const { pool, sessions } = deps;
  const message = (reply: FastifyReply, status: number, title: string, text: string) =>
    sendPortalPage(pool, reply, status, null, { title, body: html`<p>${text}</p>` });

  /** The session in force and the context of its pages, or a page saying there is none (401). */
  async function contextOf(r: FastifyRequest, reply: FastifyReply): Promise<PortalContext | null> {
    const session = await sessions.current(r);
    if (session === 'none' || session === 'ended') {
      reply.header('set-cookie', sessions.setCookie(null));
      const text =
        session === 'ended'
          ? 'Your setup session has ended (it expired or its link was revoked). Ask your administrator for a new link.'
          : 'Open the setup link you were given to start a session.';
      await message(reply, 401, session === 'ended' ? 'Session ended' : 'No setup session', text);
      return null;
    }
    return { ...deps, session, caller: await portalCaller(pool, session, r), csrf: sessions.csrfOf(session.id), query: (r.query ?? {}) as Query };
  }
  const render = async (reply: FastifyReply, ctx: PortalContext, status = 200, notice?: Html) =>
    sendPortalPage(pool, reply, status, ctx.session, await INTENTS[ctx.session.intent].render(ctx, notice));

  app.get<{ Params: { token: string } }>('/portal/open/:token', { config, schema }, async (r, reply) => {
    const opened = await sessions.open(r.params.token, { ip: r.ip, userAgent: r.headers['user-agent'] ?? null, requestId: r.id });
    if ('refused' in opened) {
      const refusal = REFUSALS[opened.refused];
      return message(reply, refusal.status, refusal.title, refusal.message);
    }
    return reply.header('set-cookie', sessions.setCookie(opened.cookie, opened.maxAgeSeconds)).header('cache-control', 'no-store').redirect('/portal', 303);
  });

  app.get('/portal', { config, schema }, async (r, reply) => {
    const ctx = await contextOf(r, reply);
    if (!ctx) return;
    return render(reply, ctx);
  });

  app.post<{ Params: { action: string }; Body: Record<string, string | undefined> | undefined }>('/portal/:action', { config, schema }, async (r, reply) => {
    const ctx = await contextOf(r, reply);
    if (!ctx) return;
    const form = (r.body && typeof r.body === 'object' ? r.body : {}) as Record<string, string | undefined>;
    if (!sessions.checkCsrf(ctx.session.id, form.csrf)) {
      return render(reply, ctx, 403, errorBox('The form expired or did not come from this page. Reload the page and try again.'));
    }
    const action = Object.hasOwn(INTENTS[ctx.session.intent].actions, r.params.action) ? INTENTS[ctx.session.intent].actions[r.params.action] : undefined;
    if (!action) return render(reply, ctx, 404, errorBox('This page has no such form.'));
    try {
      const result = await action(ctx, form);
      if ('redirect' in result) return reply.header('cache-control', 'no-store').redirect(result.redirect, 303);
      return render(reply, ctx, 200, result.notice);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const details = error.details?.map((d) => `${d.path}: ${d.message}`).join('; ');
      return render(reply, ctx, error.statusCode, errorBox(details ? `${error.message.split(':')[0]}: ${details}` : error.message));
    }
  });

  app.get<{ Params: { domainId: string } }>('/portal/domains/:domainId/status', { config, schema }, async (r, reply) => {
    const session = await sessions.current(r);
    if (typeof session === 'string') return reply.status(401).send({ error: 'No portal session in force.', code: 'portal.session_required', requestId: r.id });
    const domain =
      isDomainSession(session) && UUID.test(r.params.domainId) ? await createTenantDomainQueries(pool, session.tenantId).findDomain(r.params.domainId) : null;
    if (!domain) return reply.status(404).send({ error: 'No such domain.', code: 'tenant_domain.not_found', requestId: r.id });
    return reply.header('cache-control', 'no-store').send({ id: domain.id, domain: domain.domain, verified: domain.verified, validatedAt: domain.validatedAt });
  });

  app.get(TEST_CALLBACK_PATH, { config, schema }, async (r, reply) => {
    const ctx = await contextOf(r, reply);
    if (!ctx) return;
    if (ctx.session.intent !== 'sso') return render(reply, ctx, 404, errorBox('This session does not set up SSO.'));
    const notice = await finishConnectionTest(ctx, new URL(r.url, deps.publicBaseUrl));
    const fresh = await sessions.current(r);
    return render(reply, typeof fresh === 'string' ? ctx : { ...ctx, session: fresh }, 200, notice);
  });

  app.get(DOMAIN_SCRIPT_PATH, { config, schema }, (_r, reply) =>
    reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'no-cache').send(DOMAIN_SCRIPT),
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const isDomainSession = (s: PortalSession) => s.intent === 'domain_verification';
