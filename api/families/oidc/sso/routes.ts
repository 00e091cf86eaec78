// Enterprise SSO and social sign-in routes. The start lives under the interaction's path
// ({issuer}/interaction/:uid/sso/:connectionId) so the provider's interaction cookie proves whose sign-in it is; the
// upstream answers at the SP URLs the SSO metadata publishes (/v1/sso/:envId/:providerId/… or
// /v1/sso/:envId/connections/:connectionId/…), where the single-use state names the interaction.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OidcProviders } from '../../../oidc/types.ts';
import { messagePage, sendPage } from '../../../oidc/pages/page.ts';
import type { SsoOutcome, SsoService } from '../../../sso/service.ts';
import type { SsoTarget } from '../../../sso/connections.ts';
import type { App } from '../../../types.ts';
import { pageOf } from './pages.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const expired = messagePage('This sign-in expired', 'This sign-in expired or is not valid. Go back to the application and start again.');

interface StartRoute {
  Params: { envId: string; uid: string; connectionId: string };
}
interface SpRoute {
  Params: { envId: string; providerId?: string; connectionId?: string };
  Body: Record<string, unknown> | undefined;
}

const originOf = (r: FastifyRequest) => ({ ip: r.ip, userAgent: r.headers['user-agent'] ?? null, requestId: r.id });
const targetOf = (r: FastifyRequest<SpRoute>): SsoTarget | null => {
  const { providerId, connectionId } = r.params;
  if (connectionId !== undefined) return UUID.test(connectionId) ? { connectionId } : null;
  return providerId ? { providerId } : null;
};

function answer(reply: FastifyReply, outcome: SsoOutcome) {
  if ('redirect' in outcome) return reply.header('cache-control', 'no-store').redirect(outcome.redirect, 303);
  if (outcome.page === 'unavailable') reply.log.warn({ reason: outcome.reason }, 'sso: the upstream could not be read');
  return sendPage(reply, outcome.status, pageOf(outcome));
}

export function ssoRoutes(app: App, deps: { oidc: OidcProviders; sso: SsoService; spMetadata: (envId: string, target: SsoTarget) => Promise<string | null> }) {
  const { oidc, sso } = deps;
  const config = { public: true };
  const schema = { hide: true };
  const notFound = (reply: FastifyReply) => sendPage(reply, 404, pageOf({ status: 404, page: 'not_found' }));

  app.get<StartRoute>('/v1/oidc/:envId/interaction/:uid/sso/:connectionId', { config, schema }, async (r, reply) => {
    const { envId, uid, connectionId } = r.params;
    if (!UUID.test(envId) || !UUID.test(connectionId)) return sendPage(reply, 400, expired);
    try {
      const provider = await oidc.get(envId);
      const interaction = await provider.interactionDetails(r.raw, reply.raw);
      if (interaction.uid !== uid || interaction.prompt.name !== 'login') return sendPage(reply, 400, expired);
    } catch (error) {
      r.log.info({ err: error }, 'sso start: interaction not found');
      return sendPage(reply, 400, expired);
    }
    return answer(reply, await sso.start(envId, uid, connectionId));
  });

  for (const prefix of ['/v1/sso/:envId/:providerId', '/v1/sso/:envId/connections/:connectionId']) {
    app.get<SpRoute>(`${prefix}/callback`, { config, schema }, async (r, reply) => {
      const target = targetOf(r);
      if (!UUID.test(r.params.envId) || !target) return notFound(reply);
      const query = new URLSearchParams(r.url.split('?')[1] ?? '');
      return answer(reply, await sso.callback(r.params.envId, target, query, originOf(r)));
    });

    app.post<SpRoute>(`${prefix}/acs`, { config, schema }, async (r, reply) => {
      const target = targetOf(r);
      if (!UUID.test(r.params.envId) || !target) return notFound(reply);
      const field = (name: string) => (typeof r.body?.[name] === 'string' ? (r.body[name] as string) : undefined);
      return answer(reply, await sso.acs(r.params.envId, target, { SAMLResponse: field('SAMLResponse'), RelayState: field('RelayState') }, originOf(r)));
    });

    // The SP entity id is this URL: it answers the SP metadata, as the management API's SSO metadata publishes it.
    app.get<SpRoute>(`${prefix}/metadata`, { config, schema }, async (r, reply) => {
      const target = targetOf(r);
      const xml = UUID.test(r.params.envId) && target ? await deps.spMetadata(r.params.envId, target) : null;
      if (!xml) return notFound(reply);
      return reply.header('content-type', 'application/samlmetadata+xml; charset=utf-8').header('cache-control', 'no-cache').send(xml);
    });

    // The login URL an IdP dashboard links to: sign-in starts at the application, so only a configured defaultRedirect goes on.
    app.get<SpRoute>(`${prefix}/login`, { config, schema }, async (r, reply) => {
      const target = targetOf(r);
      if (!UUID.test(r.params.envId) || !target) return notFound(reply);
      return answer(reply, await sso.login(r.params.envId, target));
    });
  }
}
