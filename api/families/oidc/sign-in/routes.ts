// The sign-in pages of an environment's OpenID provider, at {issuer}/interaction/:uid. GET shows the identifier page
// or the consent page by the interaction's prompt; POST …/identifier answers the factors page (the same page for
// known and unknown identifiers); POST …/login, …/confirm and …/abort carry the forms (each checked against the
// interaction's CSRF token: 403 page otherwise). An expired, unknown or tampered interaction shows a 400 page. A
// finished step answers 303 to where the provider resumes the authorization.
import type { FastifyReply } from 'fastify';
import type Provider from 'oidc-provider';
import { identifierPage } from '../../../oidc/pages/identifier.ts';
import { factorsPage } from '../../../oidc/pages/factors.ts';
import { consentPage } from '../../../oidc/pages/consent.ts';
import { field, originOf, type Found, type Interactions, type Req, type Route } from './interaction.ts';
import { clientIdOf, missingOf, type SignInService } from './service.ts';
import type { SecondFactor } from './second-factor.ts';
import type { App } from '../../../types.ts';

// readOnly: nothing these pages write is cached by an instance (no NOTIFY of the API's listener), so a POST
// answers without the listener's sync round trip (api/app.ts).
export const PAGE_ROUTE = { config: { public: true, readOnly: true }, schema: { hide: true } };
/** A page whose POST changes a directory user (sign-up, verification): it answers once this instance saw its NOTIFYs. */
export const WRITING_PAGE_ROUTE = { config: { public: true }, schema: { hide: true } };
export const BASE = '/v1/oidc/:envId/interaction/:uid';

export function signInRoutes(app: App, deps: { interactions: Interactions; signIn: SignInService; second: SecondFactor }) {
  const { interactions: ix, signIn, second } = deps;

  async function showIdentifier(r: Req, reply: FastifyReply, found: Found, status = 200, error?: string, identifier?: string) {
    const { provider, interaction } = found;
    const client = await signIn.client(provider, r.params.envId, clientIdOf(interaction));
    return ix.send(reply, found, status, (t) =>
      identifierPage(
        {
          action: ix.urlOf(r, '/identifier'),
          abort: ix.urlOf(r, '/abort'),
          csrf: signIn.csrfOf(r.params.envId, r.params.uid),
          clientName: client?.name ?? clientIdOf(interaction),
          signUpUrl: signIn.signUpEnabled(provider) ? ix.urlOf(r, '/sign-up') : null,
          identifier,
          error,
        },
        t,
      ),
    );
  }

  async function showFactors(r: Req, reply: FastifyReply, found: Found, identifier: string, status = 200, error?: string) {
    const offers = await signIn.offers(r.params.envId, identifier);
    return ix.send(reply, found, status, (t) =>
      factorsPage(
        {
          base: ix.urlOf(r),
          abort: ix.urlOf(r, '/abort'),
          csrf: signIn.csrfOf(r.params.envId, r.params.uid),
          identifier,
          offers,
          rememberMe: signIn.rememberMe(found.provider),
          error,
        },
        t,
      ),
    );
  }

  async function showConsent(r: Req, reply: FastifyReply, found: Found) {
    const { provider, interaction } = found;
    const { envId, uid } = r.params;
    const remembered = await signIn.remembered(provider, envId, interaction);
    if (remembered) return ix.finish(r, reply, provider, { consent: { grantId: remembered } });
    const clientId = clientIdOf(interaction);
    const client = await signIn.client(provider, envId, clientId);
    const missing = missingOf(interaction);
    const userName = (await signIn.userName(envId, interaction.session!.accountId)) ?? '';
    return ix.send(reply, found, 200, (t) =>
      consentPage(
        {
          action: ix.urlOf(r, '/confirm'),
          abort: ix.urlOf(r, '/abort'),
          csrf: signIn.csrfOf(envId, uid),
          client: client ?? { name: clientId, logoUri: null, clientUri: null, policyUri: null, tosUri: null },
          userName,
          scopes: missing.scopes,
          resources: Object.entries(missing.resources).map(([resource, scopes]) => ({ resource, scopes })),
        },
        t,
      ),
    );
  }

  app.get<Route>(BASE, PAGE_ROUTE, async (r, reply) => {
    const found = await ix.interactionOf(r, reply);
    if (found?.interaction.prompt.name === 'login') return showIdentifier(r, reply, found);
    if (found?.interaction.prompt.name === 'consent' && found.interaction.session) return showConsent(r, reply, found);
    return ix.sendExpired(r, reply, found);
  });

  app.post<Route>(`${BASE}/identifier`, PAGE_ROUTE, async (r, reply) => {
    const found = await ix.posted(r, reply, 'login');
    if (!found) return reply;
    const identifier = field(r, 'identifier').trim();
    if (identifier === '' || identifier.length > 256) return showIdentifier(r, reply, found, 400, found.context.t.identifierRequired, identifier);
    return showFactors(r, reply, found, identifier);
  });

  app.post<Route>(`${BASE}/login`, PAGE_ROUTE, async (r, reply) => {
    const found = await ix.posted(r, reply, 'login');
    if (!found) return reply;
    const { provider, interaction } = found;
    const identifier = field(r, 'identifier').trim();
    const remember = signIn.rememberMe(provider) && field(r, 'remember') !== '';
    const login = await signIn.login(provider, r.params.envId, clientIdOf(interaction), identifier, field(r, 'password'), remember, originOf(r));
    if (!login) return showFactors(r, reply, found, identifier, 401, found.context.t.wrongCredentials);
    return second.afterFirstFactor(r, reply, found, { userId: login.accountId, amr: login.amr, remember: login.remember });
  });

  app.post<Route>(`${BASE}/confirm`, PAGE_ROUTE, async (r, reply) => {
    const found = await ix.posted(r, reply, 'consent');
    if (!found) return reply;
    const { provider, interaction } = found;
    if (!interaction.session) return ix.sendExpired(r, reply, found);
    const grantId = await signIn.consent(provider, r.params.envId, interaction, originOf(r));
    return ix.finish(r, reply, provider, { consent: { grantId } });
  });

  const abort = (r: Req, reply: FastifyReply, provider: Provider) =>
    ix.finish(r, reply, provider, { error: 'access_denied', error_description: 'The user cancelled the sign-in.' }, false);
  // GET: a plain link back to the application; it can only end this sign-in with access_denied.
  app.get<Route>(`${BASE}/abort`, PAGE_ROUTE, async (r, reply) => {
    const found = await ix.interactionOf(r, reply);
    return found ? abort(r, reply, found.provider) : ix.sendExpired(r, reply);
  });
  app.post<Route>(`${BASE}/abort`, PAGE_ROUTE, async (r, reply) => {
    const found = await ix.posted(r, reply);
    return found ? abort(r, reply, found.provider) : reply;
  });
}
