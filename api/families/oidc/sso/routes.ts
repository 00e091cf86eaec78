// Enterprise SSO and social sign-in routes. The start lives under the interaction's path
// ({issuer}/interaction/:uid/sso/:connectionId) so the provider's interaction cookie proves whose sign-in it is; the
// upstream answers at the SP URLs the SSO metadata publishes (/v1/sso/:envId/:providerId/… or
// /v1/sso/:envId/connections/:connectionId/…), where the single-use state names the interaction.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OidcProviders } from '../../../oidc/types.ts';
import type { SsoOutcome, SsoService } from '../../../sso/service.ts';
import type { SsoTarget } from '../../../sso/connections.ts';
import type { App } from '../../../types.ts';
import { sendSsoPage } from './pages.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

export function ssoRoutes(app: App, deps: { oidc: OidcProviders; sso: SsoService; spMetadata: (envId: string, target: SsoTarget) => Promise<string | null> }) {
  const { oidc, sso } = deps;
  const config = { public: true };
  const schema = { hide: true };

  function answer(r: FastifyRequest<{ Params: { envId: string } }>, reply: FastifyReply, outcome: SsoOutcome) {
    if ('redirect' in outcome) return reply.header('cache-control', 'no-store').redirect(outcome.redirect, 303);
    if (outcome.page === 'unavailable') reply.log.warn({ reason: outcome.reason }, 'sso: the upstream could not be read');
    return sendSsoPage(oidc, r, reply, r.params.envId, outcome);
  }
  const notFound = (r: FastifyRequest<{ Params: { envId: string } }>, reply: FastifyReply) => answer(r, reply, { status: 404, page: 'not_found' });
  const expired = (r: FastifyRequest<{ Params: { envId: string } }>, reply: FastifyReply, uiLocales?: unknown) =>
    answer(r, reply, { status: 400, page: 'expired', uiLocales });

  app.get<StartRoute>('/v1/oidc/:envId/interaction/:uid/sso/:connectionId', { config, schema }, async (r, reply) => {
    const { envId, uid, connectionId } = r.params;
    if (!UUID.test(envId) || !UUID.test(connectionId)) return expired(r, reply);
    let uiLocales: unknown;
    try {
      const provider = await oidc.get(envId);
      const interaction = await provider.interactionDetails(r.raw, reply.raw);
      if (interaction.uid !== uid || interaction.prompt.name !== 'login') return expired(r, reply);
      uiLocales = interaction.params.ui_locales;
    } catch (error) {
      r.log.info({ err: error }, 'sso start: interaction not found');
      return expired(r, reply);
    }
    const outcome = await sso.start(envId, uid, connectionId);
    return answer(r, reply, 'redirect' in outcome ? outcome : { ...outcome, uiLocales });
  });

  for (const prefix of ['/v1/sso/:envId/:providerId', '/v1/sso/:envId/connections/:connectionId']) {
    app.get<SpRoute>(`${prefix}/callback`, { config, schema }, async (r, reply) => {
      const target = targetOf(r);
      if (!UUID.test(r.params.envId) || !target) return notFound(r, reply);
      const query = new URLSearchParams(r.url.split('?')[1] ?? '');
      return answer(r, reply, await sso.callback(r.params.envId, target, query, originOf(r)));
    });

    app.post<SpRoute>(`${prefix}/acs`, { config, schema }, async (r, reply) => {
      const target = targetOf(r);
      if (!UUID.test(r.params.envId) || !target) return notFound(r, reply);
      const field = (name: string) => (typeof r.body?.[name] === 'string' ? (r.body[name] as string) : undefined);
      return answer(r, reply, await sso.acs(r.params.envId, target, { SAMLResponse: field('SAMLResponse'), RelayState: field('RelayState') }, originOf(r)));
    });

    // The SP entity id is this URL: it answers the SP metadata, as the management API's SSO metadata publishes it.
    app.get<SpRoute>(`${prefix}/metadata`, { config, schema }, async (r, reply) => {
      const target = targetOf(r);
      const xml = UUID.test(r.params.envId) && target ? await deps.spMetadata(r.params.envId, target) : null;
      if (!xml) return notFound(r, reply);
      return reply.header('content-type', 'application/samlmetadata+xml; charset=utf-8').header('cache-control', 'no-cache').send(xml);
    });

    // The login URL an IdP dashboard links to: sign-in starts at the application, so only a configured defaultRedirect goes on.
    app.get<SpRoute>(`${prefix}/login`, { config, schema }, async (r, reply) => {
      const target = targetOf(r);
      if (!UUID.test(r.params.envId) || !target) return notFound(r, reply);
      return answer(r, reply, await sso.login(r.params.envId, target));
    });
  }
}
