// The sign-in pages of an environment's OpenID provider, at {issuer}/interaction/:uid: GET shows the login or the
// consent page by the interaction's prompt; POST …/login, …/confirm and …/abort carry the forms (each checked
// against the interaction's CSRF token: 403 page otherwise). An expired, unknown or tampered interaction shows a
// 400 page. A finished step answers 303 to where the provider resumes the authorization.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { OidcProviders } from '../../../oidc/types.ts';
import { messagePage, sendPage } from '../../../oidc/pages/page.ts';
import { loginPage } from '../../../oidc/pages/login.ts';
import { consentPage } from '../../../oidc/pages/consent.ts';
import type { Csrf } from './csrf.ts';
import { clientIdOf, missingOf, type Interaction, type SignInService } from './service.ts';
import type { App } from '../../../types.ts';

interface Route {
  Params: { envId: string; uid: string };
  Body: Record<string, unknown> | undefined;
}
type Req = FastifyRequest<Route>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const WRONG = 'Wrong user name or password.';
const expired = messagePage('This sign-in expired', 'This sign-in expired or is not valid. Go back to the application and start again.');
const forbidden = messagePage('This form could not be accepted', 'The form was not sent by this sign-in page. Go back to the application and start again.');

const originOf = (r: FastifyRequest) => ({ ip: r.ip, userAgent: r.headers['user-agent'] ?? null, requestId: r.id });
const field = (r: Req, name: string) => (typeof r.body?.[name] === 'string' ? (r.body[name] as string) : '');

export function signInRoutes(app: App, deps: { oidc: OidcProviders; csrf: Csrf; signIn: SignInService; basePath: string }) {
  const { oidc, csrf, signIn } = deps;
  // readOnly: nothing these pages write is cached by an instance (no NOTIFY of the API's listener), so a POST
  // answers without the listener's sync round trip (api/app.ts).
  const config = { public: true, readOnly: true };
  const schema = { hide: true };
  const base = '/v1/oidc/:envId/interaction/:uid';
  const urlOf = (environmentId: string, uid: string, step = '') => `${deps.basePath}/v1/oidc/${environmentId}/interaction/${uid}${step}`;

  /** The provider and the interaction the request continues, or null once a 400 page is sent. */
  async function interactionOf(r: Req, reply: FastifyReply): Promise<{ provider: Provider; interaction: Interaction } | null> {
    const { envId, uid } = r.params;
    if (!UUID.test(envId)) return null;
    try {
      const provider = await oidc.get(envId);
      const interaction = await provider.interactionDetails(r.raw, reply.raw);
      return interaction.uid === uid ? { provider, interaction } : null;
    } catch (error) {
      // An unknown environment, no interaction cookie, an interaction expired or ended: all say "start again".
      r.log.info({ err: error }, 'sign-in interaction not found');
      return null;
    }
  }

  async function finish(r: Req, reply: FastifyReply, provider: Provider, result: Parameters<Provider['interactionResult']>[2], merge = true) {
    const returnTo = await provider.interactionResult(r.raw, reply.raw, result, { mergeWithLastSubmission: merge });
    return reply.header('cache-control', 'no-store').redirect(returnTo, 303);
  }

  async function showLogin(r: Req, reply: FastifyReply, provider: Provider, interaction: Interaction, status = 200, error?: string, userName?: string) {
    const { envId, uid } = r.params;
    const client = await signIn.client(provider, envId, clientIdOf(interaction));
    return sendPage(
      reply,
      status,
      loginPage({
        action: urlOf(envId, uid, '/login'),
        abort: urlOf(envId, uid, '/abort'),
        csrf: csrf.tokenOf(envId, uid),
        clientName: client?.name ?? clientIdOf(interaction),
        rememberMe: signIn.rememberMe(provider),
        error,
        userName,
      }),
    );
  }

  async function showConsent(r: Req, reply: FastifyReply, provider: Provider, interaction: Interaction) {
    const { envId, uid } = r.params;
    const remembered = await signIn.remembered(provider, envId, interaction);
    if (remembered) return finish(r, reply, provider, { consent: { grantId: remembered } });
    const clientId = clientIdOf(interaction);
    const client = await signIn.client(provider, envId, clientId);
    const missing = missingOf(interaction);
    return sendPage(
      reply,
      200,
      consentPage({
        action: urlOf(envId, uid, '/confirm'),
        abort: urlOf(envId, uid, '/abort'),
        csrf: csrf.tokenOf(envId, uid),
        client: client ?? { name: clientId, logoUri: null, clientUri: null, policyUri: null, tosUri: null },
        userName: (await signIn.userName(envId, interaction.session!.accountId)) ?? '',
        scopes: missing.scopes,
        resources: Object.entries(missing.resources).map(([resource, scopes]) => ({ resource, scopes })),
      }),
    );
  }

  /** The interaction of a form POST whose CSRF token is right, or null once the 400 or 403 page is sent. */
  async function posted(r: Req, reply: FastifyReply) {
    const found = await interactionOf(r, reply);
    if (!found) {
      await sendPage(reply, 400, expired);
      return null;
    }
    if (!csrf.check(r.params.envId, r.params.uid, r.body?.csrf)) {
      await sendPage(reply, 403, forbidden);
      return null;
    }
    return found;
  }

  app.get<Route>(base, { config, schema }, async (r, reply) => {
    const found = await interactionOf(r, reply);
    if (!found) return sendPage(reply, 400, expired);
    const { provider, interaction } = found;
    if (interaction.prompt.name === 'login') return showLogin(r, reply, provider, interaction);
    if (interaction.prompt.name === 'consent' && interaction.session) return showConsent(r, reply, provider, interaction);
    return sendPage(reply, 400, expired);
  });

  app.post<Route>(`${base}/login`, { config, schema }, async (r, reply) => {
    const found = await posted(r, reply);
    if (!found) return reply;
    const { provider, interaction } = found;
    if (interaction.prompt.name !== 'login') return sendPage(reply, 400, expired);
    const userName = field(r, 'userName').trim();
    const remember = signIn.rememberMe(provider) && field(r, 'remember') !== '';
    const login = await signIn.login(provider, r.params.envId, clientIdOf(interaction), userName, field(r, 'password'), remember, originOf(r));
    if (!login) return showLogin(r, reply, provider, interaction, 401, WRONG, userName);
    return finish(r, reply, provider, { login });
  });

  app.post<Route>(`${base}/confirm`, { config, schema }, async (r, reply) => {
    const found = await posted(r, reply);
    if (!found) return reply;
    const { provider, interaction } = found;
    if (interaction.prompt.name !== 'consent' || !interaction.session) return sendPage(reply, 400, expired);
    const grantId = await signIn.consent(provider, r.params.envId, interaction, originOf(r));
    return finish(r, reply, provider, { consent: { grantId } });
  });

  const abort = async (r: Req, reply: FastifyReply, found: { provider: Provider } | null) => {
    if (!found) return reply;
    return finish(r, reply, found.provider, { error: 'access_denied', error_description: 'The user cancelled the sign-in.' }, false);
  };
  // GET: a plain link back to the application; it can only end this sign-in with access_denied.
  app.get<Route>(`${base}/abort`, { config, schema }, async (r, reply) => {
    const found = await interactionOf(r, reply);
    return found ? abort(r, reply, found) : sendPage(reply, 400, expired);
  });
  app.post<Route>(`${base}/abort`, { config, schema }, async (r, reply) => abort(r, reply, await posted(r, reply)));
}
